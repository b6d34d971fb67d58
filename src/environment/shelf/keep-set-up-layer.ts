import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { layersOf, mountLayers, overlayHow, unmountOnce, type LayeredCopy } from "./mount-overlay.js";
import { removeTreeSync } from "../../lib/remove-tree.js";

/**
 * A job's copy over a kept environment held at its set-up state: what was written over the kept folder until then (the
 * checkout laid over it, the owners the sandbox gave, the maintenance's files) is a read-only layer of its own, with
 * the kept folder under it and above it an upper layer that each run writes into and that is dropped after it.
 */
export interface SetUpLayer {
  /** Puts the copy back at the set-up state: its overlay unmounted and mounted again over a new, empty upper layer. Throws when it cannot. */
  restore(): void;
}

/** The folder, beside a copy's upper and work layers, that holds its set-up layer. */
export const SET_UP_LAYER = "set-up";

/**
 * Turns the overlay `copy` into a set-up layer (see SetUpLayer): it is unmounted, its upper layer becomes the set-up
 * layer, and a new overlay is mounted at its target with an empty upper layer over the set-up layer and the kept folder.
 * `view` (a new folder) gets a read-only overlay of the set-up layer over the kept folder, for those who read the
 * set-up state while runs write in the copy. Each mount is pushed onto `layers` as it is made, for the caller to
 * unmount also when this throws. Sockets, pipes and devices in the set-up layer (not whiteouts) are removed, as
 * keepSetUpState removes them: every run and the view see the same files.
 */
export function keepSetUpLayer(copy: LayeredCopy, view: string, layers: LayeredCopy[], searchPath = process.env.PATH ?? ""): SetUpLayer {
  if (copy.how === "copy") throw new Error(`${copy.target} is a copy, not an overlay: its set-up state is kept by copying`);
  const how = overlayHow(searchPath);
  if (!("how" in how) || how.how !== copy.how)
    throw new Error(`the overlay at ${copy.target} cannot be mounted again here (${"why" in how ? how.why : how.how})`);
  copy.unmount();
  const folder = layersOf(copy.target);
  const setUp = path.join(folder, SET_UP_LAYER);
  const upper = path.join(folder, "upper");
  const work = path.join(folder, "work");
  fs.renameSync(upper, setUp);
  removeTreeSync(work);
  dropSpecialFiles(setUp, copy.lower);
  const lowers = [setUp, copy.lower];
  // Each mount's layer is on `layers` before it is made, and unmounts nothing until it is.
  let unmountCopy = () => undefined as void;
  layers.push({ how: how.how, target: copy.target, lower: copy.lower, unmount: () => unmountCopy() });
  const mountCopy = () => {
    const why = mountLayers({ how, lowers, target: copy.target, upper: { upper, work, like: setUp } });
    if (why) throw new Error(`the copy's overlay over its set-up layer could not be mounted at ${copy.target}: ${why}`);
    unmountCopy = unmountOnce(copy.target, how.how);
  };
  mountCopy();
  let unmountView = () => undefined as void;
  layers.push({ how: how.how, target: view, lower: copy.lower, unmount: () => unmountView() });
  fs.mkdirSync(view, { mode: 0o700 });
  const why = mountLayers({ how, lowers, target: view });
  if (why) throw new Error(`the set-up state's read-only view could not be mounted at ${view}: ${why}`);
  unmountView = unmountOnce(view, how.how);
  return {
    restore() {
      unmountCopy();
      removeTreeSync(upper);
      removeTreeSync(work);
      mountCopy();
    },
  };
}

/**
 * Replaces each socket, pipe or device (not a whiteout: a character device 0:0) in the set-up layer `dir` by a whiteout
 * where the kept folder `lower` has an entry at that path, or by nothing where it has none.
 */
function dropSpecialFiles(dir: string, lower: string): void {
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const at = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(at);
      else if (!entry.isFile() && !entry.isSymbolicLink() && !isWhiteout(path.join(dir, at))) whiteOut(path.join(dir, at), hasEntry(lower, at));
    }
  };
  walk("");
}

function isWhiteout(at: string): boolean {
  const stat = fs.lstatSync(at);
  return stat.isCharacterDevice() && stat.rdev === 0;
}

/**
 * Whether the folder `lower` has an entry at `relative`, through real folders only: where the maintenance replaced a
 * kept file or link by a folder, the path below it is none of the kept folder's (and is not followed out of it).
 */
function hasEntry(lower: string, relative: string): boolean {
  let at = lower;
  for (const part of relative.split(path.sep)) {
    const stat = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return false;
    at = path.join(at, part);
  }
  return fs.lstatSync(at, { throwIfNoEntry: false }) !== undefined;
}

/** Removes `at`, and where the kept folder has an entry at its path (`below`) puts a whiteout (a character device 0:0) in its place. */
function whiteOut(at: string, below: boolean): void {
  fs.rmSync(at, { force: true });
  if (!below) return;
  const made = spawnSync("mknod", ["--", at, "c", "0", "0"], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], timeout: 30_000 });
  if (made.error || made.status !== 0) throw new Error(`could not hide ${at} from the set-up state: ${made.error?.message ?? made.stderr.trim()}`);
}
