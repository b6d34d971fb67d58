import fs from "node:fs";
import path from "node:path";
import { resolveInside, UnsafePathError } from "../lib/safe-path.js";
import { checkoutNames, fileModeOf, FOLDER, isRegularFile, type TreeEntry } from "./pack/parse-tree.js";
import type { GitObjects } from "./read-git-objects.js";

/**
 * Writes the given files of `commit` into the work tree at `dir`, for a checkout made without its files (a revision
 * reads a handful of files, not the whole repository). Paths may come from a model: each is resolved inside `dir` first.
 * Only regular files are written; a path that is missing in the commit, unsafe, a link or a folder is skipped, so
 * readers find no file there and say so. Files already written are left alone. Returns the paths written.
 */
export async function writeFilesAt(objects: GitObjects, dir: string, commit: string, paths: readonly string[]): Promise<string[]> {
  const written: string[] = [];
  for (const requested of new Set(paths)) {
    let target: { relative: string; absolute: string };
    try {
      target = resolveInside(dir, requested);
    } catch (error) {
      if (error instanceof UnsafePathError) continue;
      throw error;
    }
    if (fs.existsSync(target.absolute)) continue;
    const entry = findEntry(objects, commit, target.relative);
    if (!entry || !isRegularFile(entry.mode)) continue;
    const blob = objects.readBlob(entry.oid);
    await fs.promises.mkdir(path.dirname(target.absolute), { recursive: true });
    await fs.promises.writeFile(target.absolute, blob, { mode: fileModeOf(entry.mode) });
    written.push(target.relative);
  }
  return written;
}

/** Walks the trees down the path: a path the commit does not hold is an answer (null), not an error. */
function findEntry(objects: GitObjects, commit: string, relative: string): TreeEntry | null {
  let tree = objects.readCommit(commit).tree;
  const parts = relative.split("/");
  for (const [index, name] of parts.entries()) {
    const entries = objects.readTree(tree);
    const at = checkoutNames(entries, tree).indexOf(name);
    if (at === -1) return null;
    const entry = entries[at]!;
    if (index === parts.length - 1) return entry;
    if (entry.mode !== FOLDER) return null;
    tree = entry.oid;
  }
  return null;
}
