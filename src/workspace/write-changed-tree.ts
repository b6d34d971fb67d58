import fs from "node:fs";
import git, { type TreeEntry } from "isomorphic-git";

/**
 * Writes the tree of `baseTree` with the given files replaced or added (path → new content) and returns its id.
 * Only the trees on the changed paths are rewritten, so the cost does not grow with the repository's size.
 */
export async function writeChangedTree(dir: string, baseTree: string | null, changes: Map<string, string>): Promise<string> {
  const entries: TreeEntry[] = baseTree ? (await git.readTree({ fs, dir, oid: baseTree })).tree : [];
  const byName = new Map(entries.map((e) => [e.path, e]));
  const nested = new Map<string, Map<string, string>>();
  for (const [filePath, content] of changes) {
    const slash = filePath.indexOf("/");
    if (slash < 0) {
      const oid = await git.writeBlob({ fs, dir, blob: Buffer.from(content, "utf8") });
      const old = byName.get(filePath);
      byName.set(filePath, { path: filePath, oid, type: "blob", mode: old?.type === "blob" ? old.mode : "100644" });
    } else {
      const head = filePath.slice(0, slash);
      if (!nested.has(head)) nested.set(head, new Map());
      nested.get(head)!.set(filePath.slice(slash + 1), content);
    }
  }
  for (const [name, inner] of nested) {
    const old = byName.get(name);
    const oid = await writeChangedTree(dir, old?.type === "tree" ? old.oid : null, inner);
    byName.set(name, { path: name, oid, type: "tree", mode: "040000" });
  }
  return git.writeTree({ fs, dir, tree: [...byName.values()] });
}
