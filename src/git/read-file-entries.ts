import fs from "node:fs";
import git, { type TreeEntry } from "isomorphic-git";

/** A regular file of a tree: its mode (executable or not) and its blob. */
export interface FileEntry {
  mode: "100644" | "100755";
  oid: string;
}

/**
 * Reads the entry of each path in the tree `tree` of the checkout at `dir`: the file's mode and blob, or null for a
 * path the tree does not hold (a new file). Only regular files may be replaced: a path that is a symbolic link, a
 * submodule or a folder, or that lies under a link or a file, is refused (rewriting a link's blob would re-point the
 * link at the new text as a path). Each folder on the way is read once, so the cost follows the paths, not the tree.
 */
export async function readFileEntries(dir: string, tree: string, paths: string[]): Promise<Map<string, FileEntry | null>> {
  const folders = new Map<string, Promise<TreeEntry[]>>();
  const list = (oid: string) => {
    if (!folders.has(oid))
      folders.set(
        oid,
        git.readTree({ fs, dir, oid }).then((read) => read.tree),
      );
    return folders.get(oid)!;
  };
  const entries = new Map<string, FileEntry | null>();
  for (const filePath of paths) {
    const parts = filePath.split("/");
    let folder: string | null = tree;
    let entry: TreeEntry | undefined;
    for (let k = 0; k < parts.length && folder !== null; k++) {
      entry = (await list(folder)).find((e) => e.path === parts[k]);
      const at = parts.slice(0, k + 1).join("/");
      if (entry === undefined) {
        folder = null;
      } else if (k < parts.length - 1) {
        if (entry.type !== "tree")
          throw new Error(`refusing to commit under '${at}': it is ${entry.mode === "120000" ? "a symbolic link" : "not a folder"} in the repository`);
        folder = entry.oid;
      } else if (entry.type !== "blob" || entry.mode === "120000") {
        const what = entry.mode === "120000" ? "a symbolic link" : entry.type === "commit" ? "a submodule" : "a folder";
        throw new Error(`refusing to commit '${at}': it is ${what} in the repository, not a regular file`);
      }
    }
    entries.set(filePath, folder === null ? null : { mode: entry!.mode === "100755" ? "100755" : "100644", oid: entry!.oid });
  }
  return entries;
}
