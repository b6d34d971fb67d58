import fs from "node:fs";

/**
 * The start time of process `pid` (clock ticks since boot, /proc/<pid>/stat's 22nd field), or null when it is gone:
 * with the pid, it names one process, so a pid the kernel has given to another since does not pass for it.
 */
export function startTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command's name, in parentheses, may hold spaces: fields are counted after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}
