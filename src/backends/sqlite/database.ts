import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../../lib/usage-error.js";
import { defaultEngine, type EngineConnection, type SqliteEngine, type SqliteEngineName } from "./sqlite-engines.js";

/**
 * How long one SQLite call of the app may wait on another connection's lock before failing with SQLITE_BUSY.
 * SQLite waits by sleeping on the calling thread, and the app's one thread also answers webhooks, so the app
 * waits briefly and its job queue retries on timers instead (see retry-while-locked.ts); a CLI command, which
 * serves nobody else, keeps openDatabase's longer wait.
 */
export const APP_LOCK_WAIT_MS = 20;

/** A prepared statement: `P` its parameters, `R` the row it reads. */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): { changes: number; lastInsertRowid: number | bigint };
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

/** A function that runs its body in one transaction; `immediate` takes the write lock when it begins. */
export type Transaction<A extends unknown[], T> = ((...args: A) => T) & { immediate: (...args: A) => T };

/**
 * One SQLite file, open through either engine (see sqlite-engines.ts), with the few calls the store makes: statements,
 * scripts (pragmas included), transactions and closing. Transactions are written here once, as SQL, so both engines
 * run the same BEGIN, COMMIT and ROLLBACK.
 */
export class Db {
  private inTransaction = false;
  private closed = false;

  constructor(
    /** The file, as it was given (`:memory:` for none). */
    readonly name: string,
    readonly engine: SqliteEngineName,
    private readonly connection: EngineConnection,
  ) {}

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return this.connection.prepare(sql) as Statement<P, R>;
  }

  exec(sql: string): void {
    this.connection.exec(sql);
  }

  /** `body` as a transaction: committed when it returns, rolled back when it throws. Transactions do not nest. */
  transaction<A extends unknown[], T>(body: (...args: A) => T): Transaction<A, T> {
    const begun =
      (begin: string) =>
      (...args: A) =>
        this.inOne(begin, () => body(...args));
    return Object.assign(begun("BEGIN"), { immediate: begun("BEGIN IMMEDIATE") });
  }

  /** Closes the file; closing it again does nothing (node:sqlite would throw, better-sqlite3 does not). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.close();
  }

  private inOne<T>(begin: string, body: () => T): T {
    if (this.inTransaction) throw new Error(`${this.name}: a transaction was begun inside another one; the store's transactions do not nest`);
    // A BEGIN that finds the file locked throws SQLITE_BUSY before anything is open: the caller retries it whole.
    this.connection.exec(begin);
    this.inTransaction = true;
    try {
      const result = body();
      this.connection.exec("COMMIT");
      return result;
    } catch (error) {
      try {
        this.connection.exec("ROLLBACK");
      } catch {
        // After some errors (a full disk, an I/O error) SQLite has rolled back already, and ROLLBACK finds nothing open.
      }
      throw error;
    } finally {
      this.inTransaction = false;
    }
  }
}

/** Where the user's cache folder is said to be: XDG_CACHE_HOME and HOME, as the settings read them. */
export interface CacheHome {
  cacheHome?: string;
  home?: string;
}

/**
 * The bot's own folder when no setting names one: `magis` in the user's cache folder (XDG_CACHE_HOME, else ~/.cache;
 * a relative XDG_CACHE_HOME is ignored, as the XDG spec says), or undefined when neither names a folder. Every door's
 * default SQLite file is there, never in the working folder, which may be any checkout a command runs from.
 */
export function stateFolder({ cacheHome, home }: CacheHome): string | undefined {
  const cache = cacheHome && path.isAbsolute(cacheHome) ? cacheHome : home && path.isAbsolute(home) ? path.join(home, ".cache") : undefined;
  return cache && path.join(cache, "magis");
}

/** The SQLite file when DATABASE_URL is unset, for every door: `sqliteFile` (MAGIS_DB), else magis.db in the state folder. */
export function defaultDatabasePath(store: CacheHome & { sqliteFile?: string }): string {
  if (store.sqliteFile) return store.sqliteFile;
  const folder = stateFolder(store);
  if (!folder) {
    throw new UsageError(
      "neither XDG_CACHE_HOME nor HOME names a folder (an absolute path), so the evolution memory has no place; set MAGIS_DB to the SQLite file to keep it in",
    );
  }
  return path.join(folder, "magis.db");
}

/**
 * Opens (creating if needed) the one SQLite file that holds the evolution memory and the job records, with the
 * process's engine unless one is given. Its tables are made by the migrations (sqlite-migrations.ts).
 */
export function openDatabase(file: string, engine: SqliteEngine = defaultEngine()): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Db(file, engine.name, engine.open(file));
  // WAL lets a CLI run read while the app writes; busy_timeout waits out the other writer instead of failing.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/** A statement prepared the first time it is asked for: a store's tables exist only once its migrations ran. */
export function prepareLater<S>(prepare: () => S): () => S {
  let statement: S | undefined;
  return () => (statement ??= prepare());
}
