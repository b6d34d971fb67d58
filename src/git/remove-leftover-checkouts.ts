import fs from "node:fs";
import path from "node:path";
import { unmountUnder } from "../lib/unmount-under.js";
import { checkoutOwner, isCheckoutName, THIS_PROCESS, type CheckoutOwner } from "./checkout-name.js";

/**
 * Age past which a checkout whose owner cannot be checked (made on another machine, or by a MAGIS version that did
 * not name owners) is taken as left behind: far longer than any job runs.
 */
export const UNCHECKED_CHECKOUT_AGE_MS = 24 * 60 * 60 * 1000;

/** What a clean-up did: the folders it removed and those it could not. */
export interface LeftoverCleanup {
  removed: string[];
  failed: { path: string; error: string }[];
}

/**
 * Removes from `dir` the checkouts, and the language servers' temp folders, that processes which are gone left behind
 * (killed mid-job, so withShallowClone's or the server's own clean-up never ran). The folder is shared with other processes (a `magis resolve` run, another app), so a
 * checkout is removed only when its owner is known to be gone: made on this machine by a pid that no longer runs,
 * or by an earlier run of this very pid; others only once older than UNCHECKED_CHECKOUT_AGE_MS. Owners are read
 * from folder names rather than lock files because Node has no file lock that the system releases when its
 * process dies.
 */
export function removeLeftoverCheckouts(dir: string, check: { self?: CheckoutOwner; isAlive?: (pid: number) => boolean; now?: number } = {}): LeftoverCleanup {
  const { self = THIS_PROCESS, isAlive = isRunning, now = Date.now() } = check;
  const cleanup: LeftoverCleanup = { removed: [], failed: [] };
  if (!fs.existsSync(dir)) return cleanup;
  for (const name of fs.readdirSync(dir).filter(isCheckoutName)) {
    const folder = path.join(dir, name);
    try {
      const owner = checkoutOwner(name);
      const gone =
        owner && owner.host === self.host
          ? owner.pid === self.pid
            ? owner.run !== self.run
            : !isAlive(owner.pid)
          : now - fs.statSync(folder).mtimeMs > UNCHECKED_CHECKOUT_AGE_MS;
      if (!gone) continue;
      // A test run of the dead job may still run there (its own process group, a daemon it started): stopped first.
      killProcessesIn(folder);
      // Its copy may still be an overlay over a kept environment: detached first, or the removal would fail on it.
      unmountUnder(fs.realpathSync(folder));
      fs.rmSync(folder, { recursive: true, force: true });
      cleanup.removed.push(folder);
    } catch (error) {
      cleanup.failed.push({ path: folder, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return cleanup;
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Kills (SIGKILL) every process of this machine whose working folder is `folder` or inside it: what a job's test run
 * left running when its process was killed (a detached process group, a `setsid` daemon), which nothing else stops.
 * Linux only (it reads /proc); elsewhere it does nothing.
 */
export function killProcessesIn(folder: string): number {
  let killed = 0;
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const real = fs.realpathSync(folder);
  for (const pid of pids) {
    let cwd: string;
    try {
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (cwd !== real && !cwd.startsWith(real + path.sep)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}
