import fs from "node:fs";
import path from "node:path";
import { mountOverlay, type LayeredCopy } from "../../environment/index.js";
import type { KeptEnvironment } from "../../environment/types.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** The checkout's own files and links, as paths relative to its root (forward slashes), sorted. */
export function listCheckoutFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const at = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(at);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push(at);
    }
  };
  walk("");
  return files.sort();
}

/**
 * Makes the copy at `dir` and the home at `home` from a kept environment with a newer checkout's files: the kept set-up
 * copy, less the files of the checkout it was built from that `root` no longer has, with every file of `root` laid
 * over that the kept copy does not hold as it is (same mode and bytes: left, so that it keeps its times and nothing is
 * written over the kept file). What the setup made at one of those paths (a link, a folder where the checkout has a file, a file where it has a
 * folder) is replaced, never written through. The kept folders are only read: each is the lower layer of an overlay
 * whose writes go to a layer of the job's own (see mountOverlay), or copied where no overlay can be mounted. The
 * mounts are pushed onto `layers` as they are made, for the caller to unmount also when this throws. Returns the
 * checkout's files.
 */
export function layCheckoutOver(found: KeptEnvironment, root: string, at: { dir: string; home: string; layers: LayeredCopy[] }): string[] {
  const { dir, home, layers } = at;
  const copy = (from: string, to: string) => fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  layers.push(mountOverlay(found.repoDir, dir, { copy }));
  layers.push(mountOverlay(found.homeDir, home, { copy }));
  const files = listCheckoutFiles(root);
  const now = new Set(files);
  for (const gone of found.record.checkoutFiles) if (!now.has(gone)) removeThrough(dir, gone);
  layFolder(root, dir, "");
  return files;
}

/** Lays the checkout's folder `relative` over the copy's, making each folder on the way a real folder first. */
function layFolder(root: string, dir: string, relative: string): void {
  for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
    const at = path.join(relative, entry.name);
    const from = path.join(root, at);
    const to = path.join(dir, at);
    const standing = fs.lstatSync(to, { throwIfNoEntry: false });
    if (entry.isDirectory()) {
      if (standing && !standing.isDirectory()) fs.rmSync(to, { force: true });
      if (!standing?.isDirectory()) fs.mkdirSync(to, { mode: fs.statSync(from).mode & 0o7777 });
      layFolder(root, dir, at);
      continue;
    }
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    // The kept copy's file is the checkout's already (the file no commit since changed): left as it is, read from the
    // kept folder, with its times (a build that compares them sees nothing new), and nothing written over it.
    if (entry.isFile() && standing?.isFile() && sameFile(from, to, standing)) continue;
    if (standing) fs.rmSync(to, { recursive: true, force: true });
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else copyNew(from, to);
  }
}

/** Whether the regular file `to` (`standing`, lstat) has the mode and the bytes of the checkout's file `from`. */
function sameFile(from: string, to: string, standing: fs.Stats): boolean {
  const source = fs.statSync(from);
  if (source.size !== standing.size || (source.mode & 0o7777) !== (standing.mode & 0o7777)) return false;
  return fs.readFileSync(from).equals(fs.readFileSync(to));
}

/** Copies a file to a path where nothing stands (O_EXCL|O_NOFOLLOW: never through a link made meanwhile). */
function copyNew(from: string, to: string): void {
  const mode = fs.statSync(from).mode & 0o7777;
  const fd = fs.openSync(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    fs.writeSync(fd, fs.readFileSync(from));
    fs.fchmodSync(fd, mode);
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes a file of an older checkout from the copy, when every folder on its way is still a real folder. */
function removeThrough(dir: string, relative: string): void {
  const parts = relative.split("/");
  let at = dir;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    if (!fs.lstatSync(at, { throwIfNoEntry: false })?.isDirectory()) return;
  }
  fs.rmSync(path.join(at, parts.at(-1)!), { recursive: true, force: true });
}
