import type { Db } from "./database.js";

/** One step of the SQLite schema; applied once, in order, and recorded in `schema_migrations`. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The SQLite schema, step by step. Version 1 creates what earlier releases created on the fly (IF NOT EXISTS, so a
 * file those releases wrote is taken as it is); later versions only add.
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "jobs, triggers, evolution memory, index cache",
    sql: `
      CREATE TABLE IF NOT EXISTS jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery TEXT NOT NULL UNIQUE,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        installation_id INTEGER NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        stage TEXT,
        detail TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status);
      CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, status);
      CREATE TABLE IF NOT EXISTS triggers (
        delivery TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        installation_id INTEGER NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        outcome TEXT,
        detail TEXT,
        decided_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS triggers_undecided ON triggers (outcome) WHERE outcome IS NULL;
      CREATE TABLE IF NOT EXISTS custodian_memory (
        repo TEXT NOT NULL,
        path TEXT NOT NULL,
        blob_id TEXT NOT NULL,
        summary TEXT NOT NULL,
        content BLOB NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (repo, path)
      );
      CREATE TABLE IF NOT EXISTS index_cache (
        key TEXT PRIMARY KEY,
        terms TEXT NOT NULL,
        definitions TEXT,
        bytes INTEGER NOT NULL,
        used_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS index_cache_used_at ON index_cache (used_at);`,
  },
  {
    version: 2,
    name: "the worker that runs a job, and when it started; trigger leases",
    sql: "ALTER TABLE jobs ADD COLUMN worker TEXT; ALTER TABLE jobs ADD COLUMN started_at INTEGER; ALTER TABLE triggers ADD COLUMN claimed_until INTEGER;",
  },
  {
    version: 3,
    name: "jobs' sessions",
    // data: the entry's JSON, raw-deflated (prompts and outputs shrink to about a third); chars: its length in UTF-16
    // code units, as the writer's per-job bound counts it.
    sql: `
      CREATE TABLE session_entries (
        job_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data BLOB NOT NULL,
        chars INTEGER NOT NULL,
        PRIMARY KEY (job_id, seq)
      );`,
  },
];

/**
 * Applies the migrations the file lacks, all in one IMMEDIATE transaction: a second process starting at the same time
 * waits for the write lock (or gets SQLITE_BUSY, which its caller retries) and then finds nothing to do. A file
 * migrated by a newer release is refused rather than written to.
 */
export function migrateSqlite(db: Db, migrations: readonly Migration[] = SQLITE_MIGRATIONS): number[] {
  // A file that is up to date needs no write lock: read first, so a process starting while another holds the lock
  // (a running app, a backup) finds nothing to do without waiting.
  if (migrations.every((m) => appliedVersions(db, false).has(m.version))) return [];
  return db
    .transaction(() => {
      const done = appliedVersions(db, true);
      const newest = Math.max(0, ...done);
      const known = Math.max(0, ...migrations.map((m) => m.version));
      if (newest > known) {
        throw new Error(
          `${db.name} was migrated by a newer MAGIS (schema version ${newest}; this one knows up to ${known}): run that version or newer, or point MAGIS_DB at another file`,
        );
      }
      const applied: number[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        db.exec(migration.sql);
        db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(migration.version, migration.name, Date.now());
        applied.push(migration.version);
      }
      return applied;
    })
    .immediate();
}

/** The versions recorded in the file; `create` makes the table first (inside the write transaction). */
function appliedVersions(db: Db, create: boolean): Set<number> {
  if (create) db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)");
  else if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get()) return new Set();
  return new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((row) => row.version));
}
