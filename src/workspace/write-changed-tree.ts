import fs from "node:fs";
import git, { type TreeEntry } from "isomorphic-git";

/**
 * Writes the tree of `baseTree` with the given files replaced or added (path → new bytes, already in the file's
 * encoding) and returns its id.
 * Only the trees on the changed paths are rewritten, so the cost does not grow with the repository's size.
 * Only regular files are replaced: a path that is a symbolic link, a submodule or a folder in the tree, or that lies
 * under a link or a file, is refused (rewriting a link's blob would re-point the link at the new text as a path).
 * `at` is the folder of `baseTree`, for messages.
 */
export async function writeChangedTree(dir: string, baseTree: string | null, changes: Map<string, Uint8Array>, at = ""): Promise<string> {
  const entries: TreeEntry[] = baseTree ? (await git.readTree({ fs, dir, oid: baseTree })).tree : [];
  const byName = new Map(entries.map((e) => [e.path, e]));
  const nested = new Map<string, Map<string, Uint8Array>>();
  for (const [filePath, content] of changes) {
    const slash = filePath.indexOf("/");
    if (slash < 0) {
      const old = byName.get(filePath);
      if (old && (old.type !== "blob" || old.mode === "120000")) {
        const what = old.mode === "120000" ? "a symbolic link" : old.type === "commit" ? "a submodule" : "a folder";
        throw new Error(`refusing to commit '${at}${filePath}': it is ${what} in the repository, not a regular file`);
      }
      const oid = await git.writeBlob({ fs, dir, blob: content });
      byName.set(filePath, { path: filePath, oid, type: "blob", mode: old?.type === "blob" ? old.mode : "100644" });
    } else {
      const head = filePath.slice(0, slash);
      if (!nested.has(head)) nested.set(head, new Map());
      nested.get(head)!.set(filePath.slice(slash + 1), content);
    }
  }
  for (const [name, inner] of nested) {
    const old = byName.get(name);
    if (old && old.type !== "tree") {
      throw new Error(`refusing to commit under '${at}${name}': it is ${old.mode === "120000" ? "a symbolic link" : "not a folder"} in the repository`);
    }
    const oid = await writeChangedTree(dir, old ? old.oid : null, inner, `${at}${name}/`);
    byName.set(name, { path: name, oid, type: "tree", mode: "040000" });
  }
  return git.writeTree({ fs, dir, tree: [...byName.values()] });
}
