import fs from "node:fs";
import path from "node:path";

/** Why a path the model or the issue named cannot be used. */
export class UnsafePathError extends Error {
  constructor(
    readonly requested: string,
    reason: string,
  ) {
    super(`'${requested}' ${reason}`);
    this.name = "UnsafePathError";
  }
}

/**
 * Normalizes a repository-relative path and resolves it under `root`, refusing absolute paths,
 * `..` escapes and symlinks that lead outside the root or nowhere (a link inside a repo is attacker-controlled).
 * Returns the normalized relative path (forward slashes) and the absolute path.
 */
export function resolveInside(root: string, requested: string): { relative: string; absolute: string } {
  const relative = cleanRelative(requested);
  const realRoot = fs.realpathSync(root);
  const absolute = path.join(realRoot, relative);
  // The deepest ancestor that is there, found with lstat: a link counts as there even when it leads nowhere (existsSync
  // follows links, so a dangling one would pass as "not there yet" and be written through). The file itself may not
  // exist yet (a new file).
  let probe = absolute;
  while (!isThere(probe) && probe !== realRoot) probe = path.dirname(probe);
  let real: string;
  try {
    real = fs.realpathSync(probe);
  } catch {
    throw new UnsafePathError(requested, `goes through '${path.relative(realRoot, probe)}', a symbolic link that leads nowhere`);
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    throw new UnsafePathError(requested, "leads outside the repository through a symbolic link");
  }
  if (probe !== absolute && !fs.statSync(probe).isDirectory()) {
    throw new UnsafePathError(requested, `goes below '${path.relative(realRoot, probe)}', which is a file, not a folder`);
  }
  return { relative, absolute };
}

/** A request as a normalized repository-relative path (forward slashes), or why it names no file of the repository. */
export function cleanRelative(requested: string): string {
  const cleaned = requested.trim().replace(/\\/g, "/").replace(/^\.\//, "");
  if (cleaned === "" || cleaned.includes("\0")) throw new UnsafePathError(requested, "is not a file path");
  if (cleaned.endsWith("/")) throw new UnsafePathError(requested, "ends with '/', which names a folder; name a file, without the slash");
  if (path.isAbsolute(cleaned) || /^[A-Za-z]:/.test(cleaned)) {
    throw new UnsafePathError(requested, "is absolute; use a path relative to the repository root");
  }
  const relative = path.posix.normalize(cleaned);
  if (relative === ".." || relative.startsWith("../")) {
    throw new UnsafePathError(requested, "points outside the repository");
  }
  // Any spelling git itself treats as the repository folder on some system: `.GIT` (case-insensitive file systems),
  // `.git.` and `.git ` (NTFS drops trailing dots and spaces), `git~1` (its NTFS short name), as git's verify_path does.
  const isDotGit = (part: string) => {
    const name = part.toLowerCase().replace(/[. ]+$/, "");
    return name === ".git" || /^\.?git~[1-9]$/.test(name);
  };
  if (relative.split("/").some(isDotGit)) throw new UnsafePathError(requested, "is inside .git");
  return relative;
}

/** Whether anything stands at the path itself, a link that leads nowhere included (lstat; a file on the way is "no"). */
export function isThere(at: string): boolean {
  try {
    fs.lstatSync(at);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return false;
    throw error;
  }
}
