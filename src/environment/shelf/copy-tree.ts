import fs from "node:fs";
import path from "node:path";

/**
 * Copies the folder `from` to `to` (which must not exist), keeping links as links with their text as it is
 * (`verbatimSymlinks`: never followed, never rewritten), cloning file contents where the file system can (copy-on-write
 * on btrfs and XFS) and copying them elsewhere. Sockets, pipes and devices a command made are left out: nothing of an
 * environment is one, and copying one would block or fail. As root each entry keeps its owner too (the commands' user
 * owns what its setup made): a job's overlay over the copy then need not give the files to that user again, which would
 * copy each one up.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  await copyEntries(from, to);
  if (process.getuid?.() === 0) await copyOwners(from, to);
}

async function copyEntries(from: string, to: string): Promise<void> {
  await fs.promises.cp(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    dereference: false,
    errorOnExist: true,
    force: false,
    mode: fs.constants.COPYFILE_FICLONE,
    filter: async (source) => {
      const stat = await fs.promises.lstat(source);
      return stat.isDirectory() || stat.isFile() || stat.isSymbolicLink();
    },
  });
}

/** Gives each entry under `to` the owner of its source under `from` (links themselves: lchown). */
async function copyOwners(from: string, to: string): Promise<void> {
  const give = async (source: string, target: string) => {
    const stat = await fs.promises.lstat(source);
    if (stat.uid !== 0 || stat.gid !== 0) await fs.promises.lchown(target, stat.uid, stat.gid);
    if (!stat.isDirectory()) return;
    for (const name of await fs.promises.readdir(source)) {
      const next = path.join(target, name);
      // Left out by the copy (a socket, a pipe): nothing to own.
      if (await fs.promises.lstat(next).catch(() => null)) await give(path.join(source, name), next);
    }
  };
  await give(from, to);
}
