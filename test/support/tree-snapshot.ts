import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Every path of the work tree at `dir` but its `.git`, with what a checkout must reproduce: its kind, a file's
 * executable bit, size and blob id (as the real git hashes it), a link's target. Folders are "dir".
 */
export function treeSnapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (child === ".git") continue;
      const full = path.join(dir, child);
      if (entry.isSymbolicLink()) found[child] = `link -> ${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        found[child] = "dir";
        walk(child);
      } else files.push(child);
    }
  };
  walk("");
  // One git for all the files' ids, in the order asked.
  const ids = files.length
    ? execFileSync("git", ["hash-object", "--stdin-paths"], { input: files.map((rel) => path.join(dir, rel)).join("\n"), encoding: "utf8" })
        .trim()
        .split("\n")
    : [];
  files.forEach((rel, i) => {
    const stat = fs.statSync(path.join(dir, rel));
    found[rel] = `file ${stat.mode & 0o111 ? "x" : "-"} ${stat.size} ${ids[i]}`;
  });
  return found;
}
