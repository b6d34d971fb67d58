import { wholeNumberFrom } from "../lib/env-number.js";
import { defaultDatabasePath } from "./sqlite/database.js";
import { openPostgresStore } from "./postgres/postgres-store.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "../store/store.js";

/**
 * The store the environment names: PostgreSQL when DATABASE_URL is set (shared by every process of the app, its pool
 * MAGIS_DB_POOL_SIZE connections, default 10), else the SQLite file `sqliteFile` (default MAGIS_DB, else .magis/magis.db). Not migrated:
 * the caller does that when it starts.
 */
export async function openStore(env: NodeJS.ProcessEnv, sqliteFile: string = defaultDatabasePath(env)): Promise<Store> {
  if (env.DATABASE_URL) {
    const poolSize = wholeNumberFrom(env, "MAGIS_DB_POOL_SIZE", { fallback: 10, min: 1, meaning: "the PostgreSQL connections one process may hold" });
    return openPostgresStore(env.DATABASE_URL, { poolSize, applicationName: "magis" });
  }
  return openSqliteStore(sqliteFile);
}
