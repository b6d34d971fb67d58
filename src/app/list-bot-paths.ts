import os from "node:os";
import path from "node:path";
import type { BotPath } from "../sandbox/sandbox.js";
import { UsageError } from "../lib/usage-error.js";
import { environmentFolder, serveDatabaseFile, spoolFolder } from "./settings/find-state-paths.js";
import type { Settings } from "./settings/settings-table.js";

/**
 * The bot's own files and folders, as a door's settings place them: the private key and its folder, the `.env` file,
 * the SQLite database (its folder, and the file with its WAL beside it for a folder the sandbox cannot hide whole), the
 * working directory, the trace and spool folders, the work folder of the checkouts, the kept environments' folder. The sandbox hides each of them
 * where its system folders would show it (a systemd unit's key under /etc, its working directory under /opt), and
 * `magis sandbox check` probes each. Relative settings are taken from `door.cwd`, as the door takes them.
 */
export function listBotPaths(settings: Settings, door: { cwd: string; envFile?: string }): BotPath[] {
  const at = (file: string) => path.resolve(door.cwd, file);
  const paths: BotPath[] = [];
  const add = (what: string, file: string | undefined) => {
    if (file) paths.push({ what: `the bot's ${what}`, path: at(file) });
  };
  const key = settings.app.privateKeyPath;
  add("private key", key);
  add("private key's folder", key && path.dirname(at(key)));
  add(".env file", door.envFile ?? ".env");
  // Where no setting names a file and no home names a folder, there is no default database to hide.
  const database = settings.store.databaseUrl ? undefined : defaultOrNone(() => at(serveDatabaseFile(settings.store, door.cwd).file));
  if (database) {
    add("database", database);
    add("database's write-ahead log", `${database}-wal`);
    add("database's shared-memory file", `${database}-shm`);
    add("database's folder", path.dirname(database));
  }
  add("working directory", door.cwd);
  // Without MAGIS_TRACE_DIR the traces are beside the database.
  add("trace folder", settings.jobs.traceDir || undefined);
  add("spool folder", spoolFolder(settings));
  add("work folder", settings.git.workDir ?? settings.runner.temp ?? os.tmpdir());
  add("kept environments' folder", environmentFolder(settings));
  return paths;
}

/** A default path, or undefined when nothing names a place for it (defaultDatabasePath's UsageError). */
function defaultOrNone(place: () => string): string | undefined {
  try {
    return place();
  } catch (error) {
    if (error instanceof UsageError) return undefined;
    throw error;
  }
}
