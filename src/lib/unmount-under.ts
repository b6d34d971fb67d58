import { spawnSync } from "node:child_process";
import path from "node:path";
import { listMounts } from "./list-mounts.js";

/** The file systems a job's copy may be mounted as: the kernel's overlay, and fuse-overlayfs. */
export const LAYERED = new Set(["overlay", "fuse.fuse-overlayfs"]);

/**
 * Unmounts `target`: with umount(8) as root, with fusermount3 for a FUSE mount of a user that is not. `lazy` detaches
 * it even while a process still has a file open there (a leftover of a process that is gone). Returns why not, or null.
 */
export function unmount(target: string, fstype: string, lazy = false): string | null {
  const fuse = fstype.startsWith("fuse") && process.getuid?.() !== 0;
  const [program, ...args] = fuse ? ["fusermount3", lazy ? "-uz" : "-u", "--", target] : ["umount", ...(lazy ? ["-l"] : []), "--", target];
  const result = spawnSync(program!, args, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], timeout: 30_000 });
  if (result.error) return `${program} did not start (${result.error.message})`;
  return result.status === 0 ? null : `${program} ${args.join(" ")} failed: ${result.stderr.trim() || `exit ${result.status}`}`;
}

/**
 * Detaches every layered mount (overlay, fuse-overlayfs) at `folder` or below it, deepest first: what a job that was
 * killed left mounted in its copy, which removing the folder would otherwise walk into and then fail on. Returns the
 * targets it unmounted.
 */
export function unmountUnder(folder: string): string[] {
  const inside = (target: string) => target === folder || target.startsWith(folder + path.sep);
  const targets = listMounts()
    .filter((mount) => LAYERED.has(mount.fstype) && inside(mount.target))
    .reverse();
  return targets.filter((mount) => unmount(mount.target, mount.fstype, true) === null).map((mount) => mount.target);
}
