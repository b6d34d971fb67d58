import fs from "node:fs";

/**
 * bubblewrap's read-only binds of those of `dirs` this machine has (a merged /usr makes /bin and /lib links, kept as
 * links), and the folders so bound.
 */
export function bindSystemDirs(dirs: readonly string[]): { mounts: string[]; roots: string[] } {
  const mounts: string[] = [];
  const roots: string[] = [];
  for (const dir of dirs) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) mounts.push("--symlink", fs.readlinkSync(dir), dir);
    else if (stat.isDirectory()) {
      mounts.push("--ro-bind", dir, dir);
      roots.push(dir);
    }
  }
  return { mounts, roots };
}
