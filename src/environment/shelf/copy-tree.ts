import fs from "node:fs";

/**
 * Copies the folder `from` to `to` (which must not exist), keeping links as links with their text as it is
 * (`verbatimSymlinks`: never followed, never rewritten), cloning file contents where the file system can (copy-on-write
 * on btrfs and XFS) and copying them elsewhere. Sockets, pipes and devices a command made are left out: nothing of an
 * environment is one, and copying one would block or fail.
 */
export async function copyTree(from: string, to: string): Promise<void> {
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
