import path from "node:path";
import { openEnvironmentShelf, type EnvironmentShelf } from "../environment/index.js";
import type { JobServices } from "../jobs/run-job.js";
import { environmentFolder } from "./settings/find-state-paths.js";
import type { Settings } from "./settings/settings-table.js";

/**
 * The kept environments of a door's settings: MAGIS_ENV_DIR (else `environments` in the bot's state folder, a relative
 * one taken from `cwd`) bounded by MAGIS_ENV_CACHE_MB; undefined where none are kept (0, or nothing names a folder).
 */
export function environmentShelfFor(
  settings: Pick<Settings, "environments" | "store">,
  door: { cwd: string; log: Pick<JobServices["log"], "info" | "warn"> },
): EnvironmentShelf | undefined {
  const folder = environmentFolder(settings);
  if (!folder || settings.environments.cacheMb === 0) return undefined;
  return openEnvironmentShelf({ folder: path.resolve(door.cwd, folder), maxBytes: settings.environments.cacheMb * 1024 * 1024, log: door.log });
}
