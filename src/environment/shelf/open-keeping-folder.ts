import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The name of a folder on its way in, beside the kept environments: `.keeping-<shelf instance>-<random>`. */
export const KEEPING = ".keeping-";
/** How long a `.keeping-` folder may go untouched before a sweep takes it for the leftover of a keeper that stopped. */
export const STALE_KEEPING_MS = 60 * 60 * 1000;
/** How often a keeper touches its folder while it copies, far within STALE_KEEPING_MS. */
export const HEARTBEAT_MS = 5_000;

/** A keeper's own `.keeping-` folder, touched while it is open. */
export interface KeepingFolder {
  readonly dir: string;
  /** Whether `dir` is still the folder made here (not taken by a sweep, nor made again by a copy), touched anew. */
  isOurs(): boolean;
  /** Stops touching it. */
  close(): void;
}

/**
 * Makes a keeper's folder under `parent` and touches it every `heartbeatMs`: a worker's sweep tells a live keeper from
 * a stopped one by the folder's modification time alone, since workers in containers sharing one volume share no
 * process ids (the same small pid is another process in each).
 */
export function openKeepingFolder(parent: string, instance: string, heartbeatMs = HEARTBEAT_MS): KeepingFolder {
  const dir = path.join(parent, `${KEEPING}${instance}-${randomBytes(4).toString("hex")}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  const made = fs.lstatSync(dir);
  const timer = setInterval(() => {
    const now = new Date();
    fs.promises.utimes(dir, now, now).catch(() => undefined);
  }, heartbeatMs);
  timer.unref();
  return {
    dir,
    isOurs() {
      try {
        const now = new Date();
        fs.utimesSync(dir, now, now);
        const stat = fs.lstatSync(dir);
        return stat.isDirectory() && stat.dev === made.dev && stat.ino === made.ino;
      } catch {
        return false;
      }
    },
    close: () => clearInterval(timer),
  };
}

/** Whether a `.keeping-` folder has gone untouched for longer than a live keeper ever leaves it. */
export function isStaleKeeping(dir: string, nowMs = Date.now()): boolean {
  try {
    return nowMs - fs.lstatSync(dir).mtimeMs > STALE_KEEPING_MS;
  } catch {
    return false;
  }
}
