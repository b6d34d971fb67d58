import type pg from "pg";
import { ADVISORY_LOCKS } from "./advisory-locks.js";
import { inTransaction } from "./in-transaction.js";

/** One step of the PostgreSQL schema: applied once per database, in version order, in its own transaction. */
export interface Migration {
  version: number;
  /** What it adds, for the `magis_schema_migrations` table an operator reads. */
  name: string;
  sql: string;
}

/**
 * The schema, step by step. A released step is never edited: a change is a new step with the next version at the end.
 *
 * Times are BIGINT milliseconds since the epoch, as the records carry them. Payloads are JSON kept as TEXT, not
 * JSONB: JSONB refuses the `\u0000` escape that an issue body may hold, and reorders keys, while the records should
 * come back as they were written (as they do from SQLite).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "jobs, triggers, evolution memory and index cache",
    sql: `
      CREATE TABLE jobs (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery TEXT NOT NULL UNIQUE,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        installation_id BIGINT NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        stage TEXT,
        detail TEXT,
        worker TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX jobs_status ON jobs (status, id);
      CREATE INDEX jobs_key ON jobs (key, status);

      -- seq keeps arrival order among triggers received in the same millisecond (SQLite's rowid does it there).
      CREATE TABLE triggers (
        delivery TEXT PRIMARY KEY,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        event TEXT NOT NULL,
        installation_id BIGINT NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        received_at BIGINT NOT NULL,
        outcome TEXT,
        detail TEXT,
        decided_at BIGINT
      );
      CREATE INDEX triggers_undecided ON triggers (received_at, seq) WHERE outcome IS NULL;

      CREATE TABLE custodian_memory (
        repo TEXT NOT NULL,
        path TEXT NOT NULL,
        blob_id TEXT NOT NULL,
        summary TEXT NOT NULL,
        content BYTEA NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (repo, path)
      );

      CREATE TABLE index_cache (
        key TEXT PRIMARY KEY,
        terms TEXT NOT NULL,
        definitions TEXT,
        bytes BIGINT NOT NULL,
        used_at BIGINT NOT NULL
      );
      CREATE INDEX index_cache_used_at ON index_cache (used_at);
    `,
  },
  {
    version: 2,
    name: "workers and their heartbeats; cancelling a running job; the queue's lock holder; when a run started; trigger leases",
    sql: `
      -- A running job is cancelled by its worker, which reads the reason here at its next heartbeat.
      ALTER TABLE jobs ADD COLUMN cancel_reason TEXT;
      -- graphile-worker's id for the worker pool that took the job: a lost worker's lines are released by it.
      ALTER TABLE jobs ADD COLUMN lock_holder TEXT;
      -- When its latest run started: with updated_at at its end, how long it ran (and whether two runs overlapped).
      ALTER TABLE jobs ADD COLUMN started_at BIGINT;
      -- Until when the process deciding a trigger holds it; past that, another web process takes it (its recorder died).
      ALTER TABLE triggers ADD COLUMN claimed_until BIGINT;
      CREATE INDEX jobs_running_worker ON jobs (worker) WHERE status = 'running';
      -- pool_id: graphile-worker's id of the worker's pool, which locks what it takes (freed when it is lost);
      -- lost_after_ms: how long it may stay silent, its own setting (workers need not share one).
      CREATE TABLE magis_workers (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        pool_id TEXT,
        lost_after_ms BIGINT NOT NULL,
        started_at BIGINT NOT NULL,
        seen_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: "jobs' sessions",
    sql: `
      -- A job's session, entry by entry; seq numbers the entries within the job (1, 2, 3 …), in the order written.
      -- data is the entry's JSON (compressed by PostgreSQL past 2 kB); chars its length in UTF-16 code units, as the
      -- writer's per-job bound counts it (and SQLite's store records it).
      CREATE TABLE session_entries (
        job_id BIGINT NOT NULL,
        seq INTEGER NOT NULL,
        at BIGINT NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        chars INTEGER NOT NULL,
        PRIMARY KEY (job_id, seq)
      );
    `,
  },
];

const CREATE_HISTORY = `CREATE TABLE IF NOT EXISTS magis_schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

/**
 * Applies the migrations the database lacks, each in its own transaction, and returns the versions it applied.
 * Every transaction first takes the migrations' advisory lock, so processes that start at once apply each migration
 * exactly once: the later ones wait for the lock, then find it applied. A database migrated by a newer MAGIS is
 * refused rather than run by code that does not know its schema.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  for (;;) {
    const version = await inTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1, $2)", [...ADVISORY_LOCKS.migrations]);
      await client.query(CREATE_HISTORY);
      const { rows } = await client.query<{ version: number }>("SELECT version FROM magis_schema_migrations");
      const done = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...done);
      const known = Math.max(0, ...migrations.map((migration) => migration.version));
      if (newest > known) {
        throw new Error(`This database was migrated by a newer MAGIS (version ${newest}); run that version or newer (this one knows versions up to ${known}).`);
      }
      const next = migrations.find((migration) => !done.has(migration.version));
      if (!next) return null;
      await client.query(next.sql);
      await client.query("INSERT INTO magis_schema_migrations (version, name) VALUES ($1, $2)", [next.version, next.name]);
      return next.version;
    });
    if (version === null) return applied;
    applied.push(version);
  }
}
