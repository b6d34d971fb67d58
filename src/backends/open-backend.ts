import { wholeNumberFrom } from "../lib/env-number.js";
import type { Backend } from "./backend.js";
import { openPostgresBackend } from "./postgres/postgres-backend.js";
import { openDatabase, defaultDatabasePath } from "./sqlite/database.js";
import { SqliteBackend } from "./sqlite/sqlite-backend.js";

/**
 * The backend the environment names: PostgreSQL when DATABASE_URL is set (shared by every process of the app, its pool
 * MAGIS_DB_POOL_SIZE connections, default 10), else the SQLite file `sqliteFile` (default MAGIS_DB, else
 * .magis/magis.db). A command line run (`answersWebhooks: false`) lets SQLite wait out another process's lock itself,
 * as long as it takes; the app's thread answers webhooks and waits on timers instead. Not migrated: the caller does
 * that when it starts.
 */
export async function openBackend(env: NodeJS.ProcessEnv, options: { sqliteFile?: string; answersWebhooks?: boolean } = {}): Promise<Backend> {
  if (env.DATABASE_URL) {
    const poolSize = wholeNumberFrom(env, "MAGIS_DB_POOL_SIZE", { fallback: 10, min: 1, meaning: "the PostgreSQL connections one process may hold" });
    return openPostgresBackend(env.DATABASE_URL, { poolSize, applicationName: "magis" });
  }
  const db = openDatabase(options.sqliteFile ?? defaultDatabasePath(env));
  return new SqliteBackend(db, { answersWebhooks: options.answersWebhooks ?? true });
}
