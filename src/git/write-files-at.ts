import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { resolveInside, UnsafePathError } from "../lib/safe-path.js";

/**
 * Writes the given files of `commit` into the work tree at `dir`, for a checkout made without its files (a revision
 * reads a handful of files, not the whole repository). Paths may come from a model: each is resolved inside `dir` first.
 * Only regular files are written; a path that is missing in the commit, unsafe, a link or a folder is skipped, so
 * readers find no file there and say so. Files already written are left alone. Returns the paths written.
 */
export async function writeFilesAt(dir: string, commit: string, paths: readonly string[], cache: object = {}): Promise<string[]> {
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
    const entry = await findEntry(dir, commit, target.relative, cache);
    if (!entry || (entry.mode !== "100644" && entry.mode !== "100755")) continue;
    const { blob } = await git.readBlob({ fs, dir, oid: entry.oid, cache });
    fs.mkdirSync(path.dirname(target.absolute), { recursive: true });
    fs.writeFileSync(target.absolute, blob, { mode: entry.mode === "100755" ? 0o755 : 0o644 });
    written.push(target.relative);
  }
  return written;
}

// Walks the trees down the path; isomorphic-git's own lookup throws for a missing path, which here is an answer, not an error.
async function findEntry(dir: string, commit: string, relative: string, cache: object): Promise<{ oid: string; mode: string } | null> {
  let tree = (await git.readCommit({ fs, dir, oid: commit, cache })).commit.tree;
  const parts = relative.split("/");
  for (const [index, name] of parts.entries()) {
    const entry = (await git.readTree({ fs, dir, oid: tree, cache })).tree.find((e) => e.path === name);
    if (!entry) return null;
    if (index === parts.length - 1) return { oid: entry.oid, mode: entry.mode };
    if (entry.type !== "tree") return null;
    tree = entry.oid;
  }
  return null;
}
