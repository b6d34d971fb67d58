import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";

// Blob reads overlap their I/O; a handful at a time is enough to keep the disk busy.
const PARALLEL_READS = 8;

/**
 * Writes the files of `commit` into the work tree at `dir` (which holds its `.git`), as a checkout would but
 * without building an index: the bot commits from trees, and the Custodian walks the directory.
 * Executable bits and symbolic links are kept; submodules become empty directories, as git leaves them.
 */
export async function writeWorktree(dir: string, commit: string, cache: object = {}): Promise<number> {
  const files: { file: string; oid: string; mode: string }[] = [];
  const list = async (tree: string, prefix: string): Promise<void> => {
    for (const entry of (await git.readTree({ fs, dir, oid: tree, cache })).tree) {
      const file = path.join(dir, prefix, entry.path);
      if (entry.type === "tree") {
        fs.mkdirSync(file, { recursive: true });
        await list(entry.oid, path.join(prefix, entry.path));
      } else if (entry.type === "commit") {
        fs.mkdirSync(file, { recursive: true });
      } else {
        files.push({ file, oid: entry.oid, mode: entry.mode });
      }
    }
  };
  const { commit: headers } = await git.readCommit({ fs, dir, oid: commit, cache });
  await list(headers.tree, "");
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const { file, oid, mode } = files[next++]!;
      const { blob } = await git.readBlob({ fs, dir, oid, cache });
      if (mode === "120000") await fs.promises.symlink(Buffer.from(blob).toString("utf8"), file);
      else await fs.promises.writeFile(file, blob, { mode: mode === "100755" ? 0o755 : 0o644 });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_READS }, worker));
  return files.length;
}
