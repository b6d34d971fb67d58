import fs from "node:fs";
import path from "node:path";

/** The folders a run makes for one job and must remove: test copies, language servers' folders, clones, the Action's scratch. */
const JOB_FOLDER = /^magis-(tests|language-server|clone|action)-/;

/** What a door's run left behind: folders of its jobs in its temp folder, and processes of its still running. */
export interface Leftovers {
  folders: string[];
  /** `pid command line` of each process left. */
  processes: string[];
}

/**
 * What a door run with TMPDIR=`tmp` left: its jobs' folders in `tmp` (a clone's `.tests` copy is named for the clone), and
 * every process whose command line or environment names `tmp` or holds `marker` (a sandboxed command's own words,
 * such as `sleep 3607`: the sandbox gives its commands an environment of their own, and their own process groups).
 */
export function findLeftovers(tmp: string, marker: string): Leftovers {
  const folders = fs.readdirSync(tmp).filter((name) => JOB_FOLDER.test(name));
  const processes: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    const cmdline = readProc(pid, "cmdline");
    const environ = readProc(pid, "environ");
    if ([cmdline, environ].some((text) => text.includes(tmp) || text.includes(marker))) processes.push(`${pid} ${cmdline}`);
  }
  return { folders, processes };
}

/**
 * findLeftovers once the kernel is done: a sandboxed command's processes live in a PID namespace of their own, which the
 * kernel empties when its first process dies (the door kills the sandbox's group, bwrap's inner process follows through
 * its parent-death signal), a few milliseconds after the door itself may have exited. Asks again until no process is
 * left, for `withinMs` at the most; folders are as they are.
 */
export async function leftoversOnceSettled(tmp: string, marker: string, withinMs = 5_000): Promise<Leftovers> {
  const deadline = Date.now() + withinMs;
  let found = findLeftovers(tmp, marker);
  while (found.processes.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = findLeftovers(tmp, marker);
  }
  return found;
}

/** Kills (SIGKILL, by pid) every process findLeftovers finds for `tmp` and `marker`: what a failed test must not leave running. */
export function killLeftovers(tmp: string, marker: string): void {
  for (const line of findLeftovers(tmp, marker).processes) {
    try {
      process.kill(Number(line.split(" ")[0]), "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

function readProc(pid: string, file: string): string {
  try {
    return fs
      .readFileSync(path.join("/proc", pid, file), "utf8")
      .replace(/\0/g, " ")
      .trim();
  } catch {
    // Gone meanwhile, or a kernel thread.
    return "";
  }
}
