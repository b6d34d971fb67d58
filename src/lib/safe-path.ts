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
 * `..` escapes and symlinks that lead outside the root (a link inside a repo is attacker-controlled).
 * Returns the normalized relative path (forward slashes) and the absolute path.
 */
export function resolveInside(root: string, requested: string): { relative: string; absolute: string } {
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
  const realRoot = fs.realpathSync(root);
  const absolute = path.join(realRoot, relative);
  // Follow the deepest existing ancestor: the file itself may not exist yet (a new file).
  let probe = absolute;
  while (!fs.existsSync(probe) && probe !== realRoot) probe = path.dirname(probe);
  const real = fs.realpathSync(probe);
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    throw new UnsafePathError(requested, "leads outside the repository through a symbolic link");
  }
  if (probe !== absolute && !fs.statSync(probe).isDirectory()) {
    throw new UnsafePathError(requested, `goes below '${path.relative(realRoot, probe)}', which is a file, not a folder`);
  }
  return { relative, absolute };
}
