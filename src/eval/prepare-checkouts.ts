import fs from "node:fs";
import path from "node:path";
import { checkoutNames, FOLDER, isRegularFile } from "../git/pack/parse-tree.js";
import { GitObjects } from "../git/read-git-objects.js";
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
  // One line naming every place: it travels as an instance's failure reason, which lines of its own would cut.
  if (!found)
    throw new Error(
      `no git mirror of ${repo} under ${mirrors}: looked for a bare clone (a HEAD file) or a clone (a .git) at ${candidates.join(", ")}; make one with: git clone --bare https://github.com/${repo}.git ${candidates[2]}`,
    );
  return found;
}

/**
 * Writes the regular files of `commit` into `target` straight from the mirror's objects (see GitObjects). Unlike `git
 * archive`, this survives mirrors whose largest blobs were left out: such files are skipped and counted. Links and
 * submodules are left out: ranking needs neither.
 */
async function writeTree(gitDir: string, commit: string, target: string): Promise<number> {
  const objects = new GitObjects(gitDir);
  let missing = 0;
  const write = async (tree: string, folder: string): Promise<void> => {
    const entries = objects.readTree(tree);
    const names = checkoutNames(entries, tree);
    for (const [i, entry] of entries.entries()) {
      const file = path.join(folder, names[i]!);
      if (entry.mode === FOLDER) await write(entry.oid, file);
      if (!isRegularFile(entry.mode)) continue;
      const blob = objects.read(entry.oid);
      if (!blob) {
        missing++;
        continue;
      }
      await fs.promises.mkdir(folder, { recursive: true });
      await fs.promises.writeFile(file, blob.data);
    }
  };
  try {
    await write(objects.readCommit(commit).tree, target);
  } finally {
    objects.close();
  }
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
  // Found first: an instance without a mirror leaves no empty folder behind.
  const mirror = findMirror(mirrors, instance.repo);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  const missing = await writeTree(mirror, instance.base_commit, target);
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
