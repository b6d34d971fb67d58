import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { globMatcher } from "../lib/glob.js";

/** A pattern with none of the glob's special characters names one path. */
const GLOB_CHARACTERS = /[*?[\]{}\\]/;

/**
 * The git blob ids (`sha1("blob <length>\0" + bytes)`, as `git hash-object` gives them) of a checkout's files that
 * match the declaration's key files (paths or globs relative to `root`), by `/`-separated path, read from the files
 * themselves, no git needed. A link is hashed as git hashes it, by its text, never followed; `.git` is not looked in.
 */
export function hashKeyFiles(root: string, patterns: readonly string[]): Record<string, string> {
  const ids: Record<string, string> = {};
  const add = (relative: string) => {
    const id = blobIdOf(path.join(root, relative));
    if (id) ids[relative] = id;
  };
  const literal = patterns.filter((pattern) => !GLOB_CHARACTERS.test(pattern));
  for (const pattern of literal) {
    const relative = path.posix.normalize(pattern).replace(/^\.\//, "");
    if (reachedWithoutLinks(root, relative)) add(relative);
  }
  const globs = patterns.filter((pattern) => GLOB_CHARACTERS.test(pattern));
  if (globs.length > 0) {
    const matches = globMatcher(globs);
    for (const relative of listFiles(root)) if (matches(relative)) add(relative);
  }
  return Object.fromEntries(Object.entries(ids).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The blob id of a file or link, or null for a folder, something else, or nothing there. */
function blobIdOf(file: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return null;
  }
  let bytes: Buffer;
  if (stat.isSymbolicLink()) bytes = Buffer.from(fs.readlinkSync(file, "buffer"));
  else if (stat.isFile()) bytes = fs.readFileSync(file);
  else return null;
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Whether `relative` stays under `root` and goes through no link on its way (the file itself may be one). */
function reachedWithoutLinks(root: string, relative: string): boolean {
  if (path.posix.isAbsolute(relative) || relative === ".." || relative.startsWith("../")) return false;
  const folders = relative.split("/").slice(0, -1);
  for (let depth = 1; depth <= folders.length; depth++) {
    try {
      if (!fs.lstatSync(path.join(root, ...folders.slice(0, depth))).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Every file and link under `root`, relative and `/`-separated; folders that are links are not entered, nor `.git`. */
function listFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (child !== ".git") walk(child);
      } else if (entry.isFile() || entry.isSymbolicLink()) found.push(child);
    }
  };
  walk("");
  return found;
}
