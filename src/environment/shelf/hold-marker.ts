import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { startTime } from "../../lib/process-start-time.js";

/** The folder beside a scope's kept environments that holds one marker file per holder of one of them. */
export const HOLDS = ".holds";

/** Where the markers of the kept environment at `dir` are, and how their names start. */
function markersOf(dir: string): { holds: string; prefix: string } {
  return { holds: path.join(path.dirname(dir), HOLDS), prefix: `${path.basename(dir)}-` };
}

/**
 * Marks the kept environment at `dir` held by this process, on the disk, so that another process sharing the folder
 * (a second worker, `magis env clear`) sees it: a file `<scope>/.holds/<key>-<pid>-<start time>-<random>`, beside the
 * environment rather than in it (the environment stays as it was kept). Returns the file, for dropHold.
 */
export function placeHold(dir: string): string {
  const { holds, prefix } = markersOf(dir);
  const file = path.join(holds, `${prefix}${process.pid}-${startTime(process.pid) ?? 0}-${randomBytes(4).toString("hex")}`);
  // Another holder's dropHold may take the empty folder away between the two: made again then.
  for (let tries = 1; ; tries++) {
    fs.mkdirSync(holds, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, "", { mode: 0o600, flag: "wx" });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || tries >= 3) throw error;
    }
  }
}

/** Takes a hold placeHold made away, and the markers' folder with it when no other is left in it. */
export function dropHold(file: string): void {
  fs.rmSync(file, { force: true });
  try {
    fs.rmdirSync(path.dirname(file));
  } catch {
    // Another holder's marker is in it (or it is gone already): it stays.
  }
}

/**
 * Whether a live process holds the kept environment at `dir`: a marker whose pid still runs as the process that
 * placed it (same start time). A marker of a process that is gone is removed on the way.
 */
export function isHeldOnDisk(dir: string): boolean {
  const { holds, prefix } = markersOf(dir);
  let names: string[];
  try {
    names = fs.readdirSync(holds).filter((name) => name.startsWith(prefix));
  } catch {
    return false;
  }
  let held = false;
  for (const name of names) {
    const [pid, started] = name.slice(prefix.length).split("-");
    if (pid && started && startTime(Number(pid)) === started) held = true;
    else dropHold(path.join(holds, name));
  }
  return held;
}
