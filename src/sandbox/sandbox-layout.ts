import fs from "node:fs";
import path from "node:path";

/** The user a command runs as when the bot runs as root: `nobody`, who owns nothing on the host. */
export const SANDBOX_UID = 65534;

/** Where the copy of the checkout appears inside: one path for every job, which says nothing of the host's folders. */
export const WORKSPACE = "/workspace";

/**
 * The commands' HOME inside: an empty folder in the private /tmp, or a run's `home` bound there (an environment's
 * home keeps one path for every run, so what its setup wrote there — a virtualenv's paths, say — stays right).
 */
export const HOME_DIR = "/tmp/home";

/**
 * Gives `dir` and everything in it to `uid` (links themselves, not what they point at). What is the user's already is
 * left untouched: over an overlay (a kept environment's), a chown would copy the file up.
 */
export function chownTree(dir: string, uid: number): void {
  const give = (at: string) => {
    const stat = fs.lstatSync(at);
    if (stat.uid !== uid || stat.gid !== uid) fs.lchownSync(at, uid, uid);
  };
  give(dir);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) give(path.join(entry.parentPath, entry.name));
}
