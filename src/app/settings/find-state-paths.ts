import fs from "node:fs";
import path from "node:path";
import { defaultDatabasePath, stateFolder } from "../../backends/sqlite/database.js";
import type { Settings } from "./settings-table.js";

/** Where versions of `magis serve` before the one default kept the SQLite file: in the working folder. */
const FORMER_DATABASE = path.join(".magis", "magis.db");

/**
 * The SQLite file `magis serve` opens when DATABASE_URL is unset: the one every door uses (defaultDatabasePath: MAGIS_DB,
 * else magis.db in the bot's state folder), unless MAGIS_DB is unset and the working folder `cwd` holds
 * `.magis/magis.db`, where earlier versions of serve kept the store. That one is used on, so that no queued job or
 * record is left behind, and `note` says so and what to set.
 */
export function serveDatabaseFile(store: Settings["store"], cwd: string): { file: string; note?: string } {
  const former = path.resolve(cwd, FORMER_DATABASE);
  if (store.sqliteFile || !fs.existsSync(former)) return { file: defaultDatabasePath(store) };
  const folder = stateFolder(store);
  const move = folder ? `, or move it to ${path.join(folder, "magis.db")} (the default) with its -wal and -shm files while the app is stopped` : "";
  return {
    file: former,
    note: `MAGIS_DB is unset and the working folder holds ${former}, where earlier versions of magis serve kept the store: it is used. Set MAGIS_DB=${former} to keep it there${move}`,
  };
}

/**
 * Where the web role spools the deliveries the store could not take: MAGIS_SPOOL_DIR, else `magis-spool` in the work
 * folder (MAGIS_WORKDIR), else `spool` in the bot's state folder; never a fixed name in the system's temp folder, which
 * another user could make first. Undefined when nothing names a place (no MAGIS_WORKDIR, HOME nor XDG_CACHE_HOME).
 */
export function spoolFolder(settings: Pick<Settings, "jobs" | "git" | "store">, workDir = settings.git.workDir): string | undefined {
  if (settings.jobs.spoolDir) return settings.jobs.spoolDir;
  if (workDir) return path.join(workDir, "magis-spool");
  const folder = stateFolder(settings.store);
  return folder && path.join(folder, "spool");
}

/**
 * Where the kept environments live: MAGIS_ENV_DIR, else `environments` in the bot's state folder; undefined when
 * nothing names a place (no HOME nor XDG_CACHE_HOME), and then none is kept.
 */
export function environmentFolder(settings: Pick<Settings, "environments" | "store">): string | undefined {
  if (settings.environments.dir) return settings.environments.dir;
  const folder = stateFolder(settings.store);
  return folder && path.join(folder, "environments");
}
