import { openDatabase, type Db } from "./database.js";
import type { Store } from "../../store/store.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { SqliteJobStore } from "./sqlite-jobs.js";
import { SqliteIndexCache } from "./sqlite-index-cache.js";
import { SqliteMemory } from "./sqlite-memory.js";
import { SqliteSessionStore } from "./sqlite-sessions.js";
import { SqliteTriggerStore } from "./sqlite-triggers.js";

/** The embedded store: one SQLite file holds the job records and their sessions, the triggers, the evolution memory and the index cache. */
export class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly jobs: SqliteJobStore;
  readonly triggers: SqliteTriggerStore;
  readonly memory: SqliteMemory;
  readonly sessions: SqliteSessionStore;

  constructor(
    readonly db: Db,
    options: SqliteStoreOptions = {},
  ) {
    this.jobs = new SqliteJobStore(db, options.now);
    this.triggers = new SqliteTriggerStore(db, options.now);
    this.memory = new SqliteMemory(db, new SqliteIndexCache(db, options.indexCacheBytes, options.now));
    this.sessions = new SqliteSessionStore(db);
  }

  get where(): string {
    return this.db.name;
  }

  async migrate(): Promise<number[]> {
    return migrateSqlite(this.db);
  }

  async ping(): Promise<void> {
    this.db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Opens (creating if needed) the SQLite file `file` as a store; `migrate()` makes its tables. */
export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(openDatabase(file), options);
}

/** What tests fix: the clock records are stamped with, and the index cache's bound. */
export interface SqliteStoreOptions {
  now?: () => number;
  indexCacheBytes?: number;
}
