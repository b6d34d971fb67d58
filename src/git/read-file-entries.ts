import { checkoutNames, EXECUTABLE, FOLDER, isRegularFile, LINK, SUBMODULE, type TreeEntry } from "./pack/parse-tree.js";
import type { GitObjects } from "./read-git-objects.js";

/** A regular file of a tree: its mode (executable or not) and its blob. */
export interface FileEntry {
  mode: "100644" | "100755";
  oid: string;
}

/** What an entry that is not a regular file is, as a refusal names it. */
function describe(entry: TreeEntry): string {
  if (entry.mode === LINK) return "a symbolic link";
  if (entry.mode === SUBMODULE) return "a submodule";
  return entry.mode === FOLDER ? "a folder" : `an entry of mode ${entry.mode}`;
}

/**
 * Reads the entry of each path in the tree `tree` of a repository's objects: the file's mode and blob, or null for a
 * path the tree does not hold (a new file). Only regular files may be replaced: a path that is a symbolic link, a
 * submodule or a folder, or that lies under a link or a file, is refused (rewriting a link's blob would re-point the
 * link at the new text as a path); so is a folder on the way that names an entry git never checks out (see
 * checkoutNames). Each folder on the way is read once, so the cost follows the paths, not the tree.
 */
export function readFileEntries(objects: GitObjects, tree: string, paths: string[]): Map<string, FileEntry | null> {
  const folders = new Map<string, Map<string, TreeEntry>>();
  const list = (oid: string) => {
    let folder = folders.get(oid);
    if (!folder) {
      const entries = objects.readTree(oid);
      const names = checkoutNames(entries, oid);
      folders.set(oid, (folder = new Map(names.map((name, i) => [name, entries[i]!]))));
    }
    return folder;
  };
  const found = new Map<string, FileEntry | null>();
  for (const filePath of paths) {
    const parts = filePath.split("/");
    let folder: string | null = tree;
    let entry: TreeEntry | undefined;
    for (let k = 0; k < parts.length && folder !== null; k++) {
      entry = list(folder).get(parts[k]!);
      const at = parts.slice(0, k + 1).join("/");
      if (entry === undefined) {
        folder = null;
      } else if (k < parts.length - 1) {
        if (entry.mode !== FOLDER)
          throw new Error(`refusing to commit under '${at}': it is ${entry.mode === LINK ? "a symbolic link" : "not a folder"} in the repository`);
        folder = entry.oid;
      } else if (!isRegularFile(entry.mode)) {
        throw new Error(`refusing to commit '${at}': it is ${describe(entry)} in the repository, not a regular file`);
      }
    }
    found.set(filePath, folder === null ? null : { mode: entry!.mode === EXECUTABLE ? "100755" : "100644", oid: entry!.oid });
  }
  return found;
}
