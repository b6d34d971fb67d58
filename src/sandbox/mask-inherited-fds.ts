import type { IOType } from "node:child_process";
import fs from "node:fs";

const O_CLOEXEC = 0o2000000;

/**
 * Starts a program with `stdio` on its descriptors 0–2 and /dev/null on every descriptor above 2 that this process
 * holds without close-on-exec, so that none of them reaches it. Node opens its own with close-on-exec, but one the
 * bot was started with (a shell's `exec 300<file`, a service manager's) or that native code opened stays open across
 * exec, and bubblewrap passes every descriptor on to the command. Neither Node nor bwrap can close one in the child:
 * an entry of `stdio` puts /dev/null in its place instead.
 */
export function maskInherited<T>(stdio: readonly [IOType, IOType, IOType], start: (stdio: (IOType | number)[]) => T): T {
  const inherited = inheritedDescriptors();
  if (inherited.length === 0) return start([...stdio]);
  const empty = fs.openSync("/dev/null", "r");
  try {
    const masked: (IOType | number)[] = [...stdio];
    for (const fd of inherited) {
      while (masked.length < fd) masked.push("ignore");
      masked[fd] = empty;
    }
    return start(masked);
  } finally {
    fs.closeSync(empty);
  }
}

/** This process's descriptors above 2 that a program it starts would inherit: those open without close-on-exec. */
function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = fs.readdirSync("/proc/self/fd");
  } catch {
    // No /proc: nothing to learn them from.
    return [];
  }
  return names.map(Number).filter((fd) => fd > 2 && !closesOnExec(fd));
}

function closesOnExec(fd: number): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
    return flags ? (parseInt(flags[1]!, 8) & O_CLOEXEC) !== 0 : true;
  } catch {
    // Gone since the listing (the listing's own descriptor among them): nothing to inherit.
    return true;
  }
}
