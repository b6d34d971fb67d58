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
