import type { Backend } from "./backend.js";
import { openPostgresBackend } from "./postgres/postgres-backend.js";
import { defaultDatabasePath, openDatabase, type CacheHome } from "./sqlite/database.js";
import { SqliteBackend } from "./sqlite/sqlite-backend.js";

/** Where the store is, as the environment says (the settings' `store` part). */
export interface StoreSettings extends CacheHome {
  /** DATABASE_URL */
  databaseUrl?: string;
  /** MAGIS_DB_POOL_SIZE */
  poolSize: number;
  /** MAGIS_DB */
  sqliteFile?: string;
}

/**
 * The backend the settings name: PostgreSQL when DATABASE_URL is set (shared by every process of the app, its pool
 * MAGIS_DB_POOL_SIZE connections), else the SQLite file `sqliteFile` (default: see defaultDatabasePath). A
 * command line run (`answersWebhooks: false`) lets SQLite wait out another process's lock itself, as long as it takes;
 * the app's thread answers webhooks and waits on timers instead. Not migrated: the caller does that when it starts.
 */
export async function openBackend(settings: StoreSettings, options: { sqliteFile?: string; answersWebhooks?: boolean } = {}): Promise<Backend> {
  if (settings.databaseUrl) return openPostgresBackend(settings.databaseUrl, { poolSize: settings.poolSize, applicationName: "magis" });
  const db = openDatabase(options.sqliteFile ?? defaultDatabasePath(settings));
  return new SqliteBackend(db, { answersWebhooks: options.answersWebhooks ?? true });
}
