import fs from "node:fs";
import path from "node:path";
import { mapBounded } from "../lib/map-bounded.js";
import { gitBlobId } from "./git-object-id.js";
import { evict, folderOf, keepQuietly, KEPT_TREE, KEPT_TREE_RECORD as RECORD, privateFolder, type ObjectCache } from "./object-cache.js";
import { EXECUTABLE, LINK } from "./pack/parse-tree.js";
import { GitObjects } from "./read-git-objects.js";
import { listCommit, type ClonedFile, type ListedFile } from "./write-worktree.js";

// A worker keeps the work tree of a repository's last job beside its kept objects, so that the next job on the
// repository moves it into its checkout and writes only what the new commit changed: writing sympy's 2,087 files is
// most of a later job's clone, and takes a disk about as long as git's whole clone of them. One tree per repository:
// the first job to take it has it (a rename), the others write theirs as before. A tree goes back only as the commit it
// was checked out at, file by file (see putBackTree), whatever the job did to it. Its record (KEPT_TREE_RECORD) names
// its commit and bytes: the file `.git`, a name no commit's tree can hold (git refuses it, see checkoutNames), so the
// record moves with its tree in one rename and never names another's.

/** Writes and reads under way at once, as the clone's own writer has them (libuv's threads stay busy). */
const PARALLEL = 32;
/** Files handed to `onFiles` at once, as the clone's writer hands them. */
const BATCH_FILES = 200;

/** The largest share of the cache a kept tree may take: past it, keeping the tree would evict the objects it stands on. */
const MAX_SHARE = 4;

/**
 * Moves the repository's kept work tree into `dir`, an empty folder (the checkout's, before its `.git` is made), and
 * returns the commit it holds; null, with `dir` left empty, when none is kept (or another job has it).
 */
export function takeKeptTree(cache: ObjectCache, url: string, dir: string): string | null {
  if (!privateFolder(cache.dir)) return null;
  try {
    // An empty folder is replaced by the rename; of two jobs renaming at once, the later finds nothing.
    fs.renameSync(path.join(folderOf(cache, url), KEPT_TREE), dir);
  } catch {
    return null;
  }
  const record = path.join(dir, RECORD);
  try {
    const commit = fs.lstatSync(record).isFile() ? (JSON.parse(fs.readFileSync(record, "utf8")) as { commit?: unknown }).commit : undefined;
    fs.rmSync(record, { recursive: true, force: true });
    if (typeof commit === "string" && /^[0-9a-f]{40}$/.test(commit)) return commit;
  } catch {
    // Not a record of ours: the tree is not used.
  }
  emptyFolder(dir);
  return null;
}

/**
 * Turns the work tree at `dir`, checked out at `from`, into `commit`'s (both read from the packs of its `.git`):
 * what changed or went is taken away, the rest stays as it is, what is new is written. `onFiles` is given every regular
 * file of `commit` as the clone's writer gives them (see CloneSink), those that stayed read from the disk. Throws when
 * the packs no longer hold `from` (the caller then writes the tree afresh); returns as writeWorktree does.
 */
export async function updateKeptTree(
  dir: string,
  from: string,
  commit: string,
  onFiles?: (files: ClonedFile[]) => Promise<void>,
): Promise<{ files: number; folders: string[] }> {
  const gitDir = path.join(dir, ".git");
  const before = await listCommit(gitDir, from);
  const after = from === commit ? before : await listCommit(gitDir, commit);
  const wanted = new Map(after.files.map((file) => [file.rel, file]));
  const folders = new Set(after.folders);
  // A folder the commit no longer has goes with what it holds; then a file that went, or changed its blob or mode.
  for (const rel of before.folders) if (!folders.has(rel)) await fs.promises.rm(path.join(dir, rel), { recursive: true, force: true });
  const stayed = new Set<string>();
  await mapBounded(before.files, PARALLEL, async (file) => {
    const now = wanted.get(file.rel);
    if (now && now.oid === file.oid && now.mode === file.mode) stayed.add(file.rel);
    else await fs.promises.rm(path.join(dir, file.rel), { recursive: true, force: true });
  });
  const objects = new GitObjects(gitDir);
  try {
    await makeFolders(dir, after.folders);
    await mapBounded(
      after.files.filter((file) => !stayed.has(file.rel)),
      PARALLEL,
      (file) => writeFile(dir, file, objects.readAs(file.oid, "blob")),
    );
    if (onFiles) {
      const regular = after.files.filter((file) => file.mode !== LINK);
      for (let start = 0; start < regular.length; start += BATCH_FILES) {
        const batch = await mapBounded(regular.slice(start, start + BATCH_FILES), PARALLEL, async ({ rel, oid }) => ({
          path: rel,
          oid,
          bytes: stayed.has(rel) ? await fs.promises.readFile(path.join(dir, rel)) : objects.readAs(oid, "blob"),
        }));
        await onFiles(batch);
      }
    }
  } finally {
    objects.close();
  }
  return { files: after.files.length, folders: after.folders };
}

/**
 * Keeps the checkout at `dir` as the repository's work tree for the next job, as `commit`'s tree exactly: whatever
 * is there that the commit does not hold goes (a file the job wrote, a link where a folder was, a fifo), each file
 * the commit holds is compared with its blob by content and executable bit and written again when it differs, and
 * nothing is followed through a link. Returns whether it was kept; false (the caller removes `dir`) when the cache
 * is not this user's alone, holds no objects for the repository, has a tree kept already, or the tree is too large.
 */
export async function putBackTree(cache: ObjectCache, url: string, dir: string, commit: string): Promise<boolean> {
  const folder = folderOf(cache, url);
  if (!privateFolder(cache.dir) || !fs.existsSync(folder) || fs.existsSync(path.join(folder, KEPT_TREE))) return false;
  const gitDir = path.join(dir, ".git");
  const { files, folders } = await listCommit(gitDir, commit);
  const bytes = await restoreTree(dir, gitDir, files, folders);
  if (bytes > cache.maxBytes / MAX_SHARE) return false;
  await fs.promises.rm(gitDir, { recursive: true, force: true });
  fs.writeFileSync(path.join(dir, RECORD), `${JSON.stringify({ commit, bytes })}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.renameSync(dir, path.join(folder, KEPT_TREE));
  } catch {
    // Another job put its tree back first, or the repository's objects went meanwhile.
    return false;
  }
  keepQuietly(() => evict(cache));
  return true;
}

/** Makes `tree`'s files and folders at `dir` exactly those listed (see putBackTree); returns the bytes of its files. */
async function restoreTree(dir: string, gitDir: string, files: ListedFile[], folders: string[]): Promise<number> {
  const wanted = new Map(files.map((file) => [file.rel, file]));
  const wantedFolders = new Set(folders);
  // What is there and not listed goes; a folder is entered only when it is one (a directory entry's own type, never a link's target).
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (child === ".git") continue;
      if (entry.isDirectory() && wantedFolders.has(child)) await walk(child);
      else if ((entry.isFile() || entry.isSymbolicLink()) && wanted.has(child)) continue;
      else await fs.promises.rm(path.join(dir, child), { recursive: true, force: true });
    }
  };
  await walk("");
  await makeFolders(dir, folders);
  const objects = new GitObjects(gitDir);
  let bytes = 0;
  try {
    await mapBounded(files, PARALLEL, async (file) => {
      const at = path.join(dir, file.rel);
      const stat = await fs.promises.lstat(at).catch(() => undefined);
      if (file.mode === LINK) {
        const target = objects.readAs(file.oid, "blob").toString("utf8");
        if (stat?.isSymbolicLink() && (await fs.promises.readlink(at)) === target) return;
      } else if (stat?.isFile() && stat.nlink === 1 && ((stat.mode & 0o100) !== 0) === (file.mode === EXECUTABLE)) {
        const held = await fs.promises.readFile(at);
        bytes += held.length;
        if (gitBlobId(held) === file.oid) return;
        bytes -= held.length;
      }
      if (stat) await fs.promises.rm(at, { recursive: true, force: true });
      const blob = objects.readAs(file.oid, "blob");
      if (file.mode !== LINK) bytes += blob.length;
      await writeFile(dir, file, blob);
    });
  } finally {
    objects.close();
  }
  return bytes;
}

/** Makes the folders (parents first, as listed) that are not there. */
async function makeFolders(dir: string, folders: string[]): Promise<void> {
  for (const rel of folders) {
    await fs.promises.mkdir(path.join(dir, rel)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
}

/** Writes one file of a tree as the clone's writer does: a link as a link, never through a link or onto a file there. */
async function writeFile(dir: string, { rel, mode }: ListedFile, blob: Buffer): Promise<void> {
  const at = path.join(dir, rel);
  if (mode === LINK) return fs.promises.symlink(blob.toString("utf8"), at);
  await fs.promises.writeFile(at, blob, { mode: mode === EXECUTABLE ? 0o755 : 0o644, flag: "wx" });
}

/** Takes everything out of `dir` but the entry `keep`, leaving the folder. */
export function emptyFolder(dir: string, keep?: string): void {
  for (const name of fs.readdirSync(dir)) if (name !== keep) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
}
