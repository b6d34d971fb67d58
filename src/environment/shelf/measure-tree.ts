import fs from "node:fs";
import path from "node:path";

/**
 * The bytes a folder holds: the sizes of its files and links (a link's own, its text's), each file with several names
 * counted once, read with lstat so that no link is followed (a link to a big file elsewhere, or to /etc/shadow, counts
 * as its few bytes); folders themselves count nothing.
 */
export async function measureTree(dir: string): Promise<number> {
  const seen = new Set<string>();
  let bytes = 0;
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await fs.promises.readdir(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      const stat = await fs.promises.lstat(file);
      if (stat.isDirectory()) {
        await walk(file);
        continue;
      }
      const id = `${stat.dev}:${stat.ino}`;
      if (stat.nlink > 1 && seen.has(id)) continue;
      seen.add(id);
      bytes += stat.size;
    }
  };
  await walk(dir);
  return bytes;
}
