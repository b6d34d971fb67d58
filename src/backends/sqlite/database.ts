import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export type Db = Database.Database;

/**
 * How long one SQLite call of the app may wait on another connection's lock before failing with SQLITE_BUSY.
 * SQLite waits by sleeping on the calling thread, and the app's one thread also answers webhooks, so the app
 * waits briefly and its job queue retries on timers instead (see retry-while-locked.ts); a CLI command, which
 * serves nobody else, keeps openDatabase's longer wait.
 */
export const APP_LOCK_WAIT_MS = 20;

/** Where the SQLite file lives: `file` (MAGIS_DB) when given, else `.magis/magis.db` under the working directory. */
export function defaultDatabasePath(file?: string): string {
  return file || path.resolve(".magis", "magis.db");
}

/**
 * Opens (creating if needed) the one SQLite file that holds the evolution memory and the job records.
 * Its tables are made by the migrations (sqlite-migrations.ts).
 */
export function openDatabase(file: string = defaultDatabasePath()): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  // WAL lets a CLI run read while the app writes; busy_timeout waits out the other writer instead of failing.
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  return db;
}

/** A statement prepared the first time it is asked for: a store's tables exist only once its migrations ran. */
export function prepareLater<S>(prepare: () => S): () => S {
  let statement: S | undefined;
  return () => (statement ??= prepare());
}
