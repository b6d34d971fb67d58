import { defaultDatabasePath } from "./sqlite/database.js";
import { openPostgresStore } from "./postgres/postgres-store.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "../store/store.js";

/** Where the store is, as the environment says (the settings' `store` part). */
export interface StoreSettings {
  /** DATABASE_URL */
  databaseUrl?: string;
  /** MAGIS_DB_POOL_SIZE */
  poolSize: number;
  /** MAGIS_DB */
  sqliteFile?: string;
}

/**
 * The store the settings name: PostgreSQL when DATABASE_URL is set (shared by every process of the app, its pool
 * MAGIS_DB_POOL_SIZE connections), else the SQLite file `sqliteFile` (default MAGIS_DB, else .magis/magis.db). Not migrated:
 * the caller does that when it starts.
 */
export async function openStore(settings: StoreSettings, sqliteFile: string = defaultDatabasePath(settings.sqliteFile)): Promise<Store> {
  if (settings.databaseUrl) return openPostgresStore(settings.databaseUrl, { poolSize: settings.poolSize, applicationName: "magis" });
  return openSqliteStore(sqliteFile);
}
