import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { instanceDir, type BenchInstance } from "./read-instances.js";

/** Where the bare mirror of `owner/name` may be under a mirrors directory (the `fetch` layout first). */
export function findMirror(mirrors: string, repo: string): string {
  const [owner, name] = repo.split("/") as [string, string];
  const candidates = [
    path.join(mirrors, `${owner}+${name}`, "repo"),
    path.join(mirrors, `${owner}+${name}`),
    path.join(mirrors, owner, `${name}.git`),
    path.join(mirrors, owner, name),
    path.join(mirrors, `${name}.git`),
    path.join(mirrors, name),
  ];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, "HEAD")) || fs.existsSync(path.join(dir, ".git")));
  if (!found) throw new Error(`no git mirror of ${repo} under ${mirrors}; looked at:\n  ${candidates.join("\n  ")}`);
  return found;
}

/**
 * Writes the tree of `commit` into `target` straight from the object store. Unlike `git archive`, this
 * survives mirrors whose largest blobs were left out: such files are skipped and counted.
 */
async function writeTree(gitDir: string, commit: string, target: string): Promise<number> {
  const listing = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "-z", commit], { maxBuffer: 1 << 28 }).toString();
  const entries = listing
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const [meta, file] = line.split("\t") as [string, string];
      const [mode, type, sha] = meta.split(" ") as [string, string, string];
      return { mode, type, sha, file };
    })
    .filter((e) => e.type === "blob" && e.mode !== "120000"); // links are not needed to rank files
  const batch = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "inherit"] });
  let buffered = Buffer.alloc(0);
  let missing = 0;
  let index = 0;
  await new Promise<void>((resolve, reject) => {
    batch.on("error", reject);
    batch.stdout.on("data", (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const newline = buffered.indexOf(10);
        if (newline === -1) return;
        const header = buffered.subarray(0, newline).toString();
        if (header.endsWith(" missing")) {
          missing++;
          buffered = buffered.subarray(newline + 1);
          index++;
          continue;
        }
        const size = Number(header.split(" ")[2]);
        if (buffered.length < newline + 1 + size + 1) return;
        const entry = entries[index++]!;
        const dest = path.join(target, entry.file);
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        fs.writeFileSync(dest, buffered.subarray(newline + 1, newline + 1 + size));
        buffered = buffered.subarray(newline + 1 + size + 1);
      }
    });
    batch.on("close", () => resolve());
    batch.stdin.end(entries.map((e) => e.sha).join("\n") + "\n");
  });
  return missing;
}

/** The file beside a checkout made from a mirror that names the commit it holds (a plain tree has no .git to say so). */
export function commitStampOf(checkout: string): string {
  return `${checkout}.base_commit`;
}

/**
 * Makes `<checkouts>/<instance_id>/` hold the instance's repository at its base commit, from a bare mirror, unless it
 * is there already (a git checkout, or a tree whose commit stamp is written). The stamp is written last, so a tree a
 * killed run left half-written is made again. Returns a line saying what was done, or null when nothing was.
 */
export async function prepareCheckout(instance: BenchInstance, mirrors: string, checkouts: string): Promise<string | null> {
  const target = instanceDir(checkouts, instance.instance_id);
  if (fs.existsSync(path.join(target, ".git")) || fs.existsSync(commitStampOf(target))) return null;
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  const missing = await writeTree(findMirror(mirrors, instance.repo), instance.base_commit, target);
  fs.writeFileSync(commitStampOf(target), `${instance.base_commit}\n`);
  return `${instance.instance_id}: checked out ${instance.base_commit.slice(0, 10)}${missing ? ` (${missing} blobs absent from the mirror, skipped)` : ""}`;
}

/** Makes `<checkouts>/<instance_id>/` hold each instance's repository at its base commit, from bare mirrors. */
export async function prepareCheckouts(instances: BenchInstance[], mirrors: string, checkouts: string, log: (line: string) => void): Promise<void> {
  for (const instance of instances) {
    const done = await prepareCheckout(instance, mirrors, checkouts);
    if (done) log(done);
  }
}
