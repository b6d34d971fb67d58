import fs from "node:fs";
import path from "node:path";
import { cleanRelative, isThere, resolveInside } from "./safe-path.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/**
 * Writes a file at a repository-relative path inside `root` without following a link there, for a folder the
 * repository's commands have written in: whatever stands at the path (a file, a link they planted, a folder) is removed
 * and the file is made anew (O_CREAT|O_EXCL|O_NOFOLLOW), and missing folders on the way are made one at a time. The
 * folders on the way must be real folders inside `root` (a link among them may lead only inside). Checking and writing
 * are separate steps, so no command may be running in `root` meanwhile. The file keeps the owner and mode of the file it
 * replaces; a new one gets its folder's owner and mode 0644. Returns the path written.
 */
export function writeInside(root: string, requested: string, data: Uint8Array): string {
  const relative = cleanRelative(requested);
  const parent = path.posix.dirname(relative);
  const folder = parent === "." ? fs.realpathSync(root) : makeFolders(root, parent, requested);
  const target = path.join(folder, path.posix.basename(relative));
  const standing = fs.lstatSync(target, { throwIfNoEntry: false });
  const owner = standing?.isFile() ? standing : fs.lstatSync(folder);
  const mode = standing?.isFile() ? standing.mode & 0o7777 : 0o644;
  if (standing?.isDirectory()) fs.rmSync(target, { recursive: true, force: true });
  else if (standing) fs.unlinkSync(target);
  const fd = fs.openSync(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    fs.fchownSync(fd, owner.uid, owner.gid);
    fs.fchmodSync(fd, mode);
    fs.writeSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
  return target;
}

/** The real path of a folder inside `root`, made where missing (mkdir makes no link its own), checked on the way. */
function makeFolders(root: string, relative: string, requested: string): string {
  // Refuses links that lead out or nowhere and files standing where a folder must be.
  const { absolute } = resolveInside(root, relative);
  const missing: string[] = [];
  let probe = absolute;
  while (!isThere(probe)) {
    missing.unshift(path.basename(probe));
    probe = path.dirname(probe);
  }
  let folder = fs.realpathSync(probe);
  for (const name of missing) {
    folder = path.join(folder, name);
    fs.mkdirSync(folder);
  }
  if (!fs.lstatSync(folder).isDirectory()) throw new Error(`'${requested}': '${relative}' is not a folder`);
  return folder;
}
