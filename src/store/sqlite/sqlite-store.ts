import { openDatabase, type Db } from "../database.js";
import type { Store } from "../store.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { SqliteJobStore } from "./sqlite-jobs.js";
import { SqliteMemory } from "./sqlite-memory.js";
import { SqliteTriggerStore } from "./sqlite-triggers.js";

/** The embedded store: one SQLite file holds the job records, the triggers, the evolution memory and the index cache. */
export class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly jobs: SqliteJobStore;
  readonly triggers: SqliteTriggerStore;
  readonly memory: SqliteMemory;

  constructor(readonly db: Db) {
    this.jobs = new SqliteJobStore(db);
    this.triggers = new SqliteTriggerStore(db);
    this.memory = new SqliteMemory(db);
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
export function openSqliteStore(file?: string): SqliteStore {
  return new SqliteStore(openDatabase(file));
}
