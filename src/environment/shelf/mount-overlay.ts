import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { findProgram } from "../../sandbox/index.js";
import { startTime } from "../../lib/process-start-time.js";
import { unmount } from "../../lib/unmount-under.js";
import type { LayeredHow } from "../types.js";

/** A job's copy of a kept folder: what reads see of it, and how to end it. */
export interface LayeredCopy {
  how: LayeredHow;
  /** The folder it shows the kept one at. */
  target: string;
  /** The kept folder it shows (read-only): the lowest layer of an overlay, or what was copied. */
  lower: string;
  /** Why it is a copy and not an overlay (no root and no fuse-overlayfs, the mount refused, …). */
  why?: string;
  /** Unmounts the overlay (a copy has nothing to unmount); throws when it stays mounted. */
  unmount(): void;
}

/** The owner file beside a job's layers: `pid start-time` of the process that mounted them (see isLayersOwnerGone). */
export const LAYERS_OWNER = "owner";

/** The folder beside `target` holding its upper and work layers and the owner file. */
export function layersOf(target: string): string {
  return `${target}.layers`;
}

/** Characters mount(8)'s option string cannot carry in a path (`lowerdir=a,b` would be read as two options). */
const UNSAFE_PATH = /[,:\\\s]/;

/**
 * Shows the kept folder `lower` at `target` (a new, empty folder) read-write, with every write going to an upper layer
 * of this job's own beside it (`<target>.layers`): the kernel's overlay as root, fuse-overlayfs otherwise, and a plain
 * copy where neither can mount, with the reason. `lower` is never written: a write copies the file up first, a removal
 * leaves a whiteout, a chmod or a new link lands in the upper layer alone.
 */
export function mountOverlay(lower: string, target: string, options: { searchPath?: string; copy: (from: string, to: string) => void }): LayeredCopy {
  const tried = tryMount(lower, target, options.searchPath ?? process.env.PATH ?? "");
  if ("how" in tried) return tried;
  fs.rmSync(layersOf(target), { recursive: true, force: true });
  // A mount that failed left the empty folder it was to cover (0700): the copy makes its own, with the kept one's mode.
  if (tried.made) fs.rmdirSync(target);
  options.copy(lower, target);
  return { how: "copy", target, lower, why: tried.why, unmount: () => undefined };
}

function tryMount(lower: string, target: string, searchPath: string): LayeredCopy | { why: string; made?: boolean } {
  if (process.platform !== "linux") return { why: "overlays are Linux's" };
  const layers = layersOf(target);
  const upper = path.join(layers, "upper");
  const work = path.join(layers, "work");
  if ([lower, upper, work, target].some((one) => UNSAFE_PATH.test(one)))
    return { why: "a path holds a comma, colon, backslash or space, which mount options cannot carry" };
  const how = overlayHow(searchPath);
  if ("why" in how) return how;
  const made = !fs.existsSync(target);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const why = mountLayers({ how, lowers: [lower], target, upper: { upper, work, like: lower } });
  if (why) return { why, made };
  return { how: how.how, target, lower, unmount: unmountOnce(target, how.how) };
}

/** How this process mounts an overlay: the kernel's as root, fuse-overlayfs (found on `searchPath`) otherwise. */
export type OverlayHow = { how: "overlay" } | { how: "fuse-overlayfs"; program: string };

/** How overlays are mounted here, or why none can be. */
export function overlayHow(searchPath: string): OverlayHow | { why: string } {
  if (process.getuid?.() === 0) return { how: "overlay" };
  const fuse = findProgram("fuse-overlayfs", searchPath);
  if (!fuse) return { why: "not root, and no fuse-overlayfs on PATH" };
  if (!fs.existsSync("/dev/fuse")) return { why: "not root, and no /dev/fuse for fuse-overlayfs" };
  return { how: "fuse-overlayfs", program: fuse };
}

/**
 * Mounts the folders `lowers` (the uppermost first) as one overlay at `target` (an empty folder), with the owner file
 * beside it. With `upper` its writes go to a new upper layer made at `upper.upper` (its root given the owner and mode
 * of `upper.like`, which the merged view's root shows), else it is read-only. Returns why it could not, or null.
 */
export function mountLayers(input: {
  how: OverlayHow;
  lowers: readonly string[];
  target: string;
  upper?: { upper: string; work: string; like: string };
}): string | null {
  const { how, lowers, target, upper } = input;
  const layers = layersOf(target);
  fs.mkdirSync(layers, { recursive: true, mode: 0o700 });
  const options = [`lowerdir=${lowers.join(":")}`];
  if (upper) {
    fs.mkdirSync(upper.upper, { mode: 0o700 });
    fs.mkdirSync(upper.work, { mode: 0o700 });
    // The upper layer's root is what the merged view's root is: its owner and mode are the layer below's.
    const top = fs.lstatSync(upper.like);
    if (how.how === "overlay") fs.chownSync(upper.upper, top.uid, top.gid);
    fs.chmodSync(upper.upper, top.mode & 0o7777);
    options.push(`upperdir=${upper.upper}`, `workdir=${upper.work}`);
  }
  fs.writeFileSync(path.join(layers, LAYERS_OWNER), `${process.pid} ${startTime(process.pid) ?? 0}\n`, { mode: 0o600 });
  const joined = options.join(",");
  const [program, ...args] =
    how.how === "overlay" ? ["mount", "-t", "overlay", "magis-layers", "-o", joined, "--", target] : [how.program, "-o", joined, target];
  const result = spawnSync(program!, args, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], timeout: 30_000 });
  if (!result.error && result.status === 0) return null;
  const why = result.error?.message ?? (result.stderr.trim().split("\n").at(-1) || `exit ${result.status}`);
  return `${how.how === "overlay" ? "mount -t overlay" : "fuse-overlayfs"} failed: ${why}`;
}

/** Unmounts the overlay at `target` once (later calls do nothing), lazily when it is busy; throws when it stays mounted. */
export function unmountOnce(target: string, how: Exclude<LayeredHow, "copy">): () => void {
  let mounted = true;
  const fstype = how === "overlay" ? "overlay" : "fuse.fuse-overlayfs";
  return () => {
    if (!mounted) return;
    const failed = unmount(target, fstype) && unmount(target, fstype, true);
    if (failed) throw new Error(`could not unmount the job's overlay at ${target}: ${failed}`);
    mounted = false;
  };
}

/** Whether the process that mounted a job's layers is gone: its owner file names a pid that no longer runs as that process. */
export function isLayersOwnerGone(layers: string): boolean {
  const file = path.join(layers, LAYERS_OWNER);
  let text: string;
  try {
    // Only the bot's own file counts: another user's beside a mount of theirs would have the bot unmount it.
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.uid !== process.getuid?.()) return false;
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false;
  }
  const [pid, started] = text.trim().split(" ");
  return startTime(Number(pid)) !== started;
}
