import fs from "node:fs";
import path from "node:path";
import { mapBounded } from "../lib/map-bounded.js";
import { gitBlobId, gitObjectId } from "./git-object-id.js";
import { evict, folderOf, keepQuietly, KEPT_TREE, KEPT_TREE_RECORD as RECORD, privateFolder, type ObjectCache } from "./object-cache.js";
import { EXECUTABLE, LINK } from "./pack/parse-tree.js";
import { GitObjects } from "./read-git-objects.js";
import { listCommit, type ClonedFile, type ListedFile } from "./write-worktree.js";
import type { PackedObject } from "./pack/pack-objects.js";

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

/** Mode bits no file or folder of a tree the clone writes has: setuid, setgid, sticky, writable by group or others. */
const FOREIGN_BITS = 0o7022;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** This user's id, or undefined where there is none (then owners are not compared). */
const uid = process.getuid?.();

/** Whether the entry is this user's, as everything the clone writes is. */
const ours = (stat: fs.Stats) => uid === undefined || stat.uid === uid;

/**
 * Moves the repository's kept work tree into `dir`, an empty folder (the checkout's, before its `.git` is made), and
 * returns the commit it holds; null, with `dir` left empty, when none is kept (or another job has it).
 */
export async function takeKeptTree(cache: ObjectCache, url: string, dir: string): Promise<string | null> {
  if (!privateFolder(cache.dir)) return null;
  try {
    // An empty folder is replaced by the rename; of two jobs renaming at once, the later finds nothing.
    fs.renameSync(path.join(folderOf(cache, url), KEPT_TREE), dir);
  } catch {
    return null;
  }
  // The checkout's folder is this user's alone, whatever the tree's folder had become.
  const root = fs.lstatSync(dir);
  if (root.isDirectory() && ours(root)) fs.chmodSync(dir, 0o700);
  const record = path.join(dir, RECORD);
  try {
    const held = fs.lstatSync(record);
    const commit = held.isFile() && root.isDirectory() && ours(root) ? (JSON.parse(fs.readFileSync(record, "utf8")) as { commit?: unknown }).commit : undefined;
    fs.rmSync(record, { recursive: true, force: true });
    if (typeof commit === "string" && /^[0-9a-f]{40}$/.test(commit)) return commit;
  } catch {
    // Not a record of ours: the tree is not used.
  }
  await emptyFolder(dir);
  return null;
}

/**
 * Turns the work tree at `dir`, checked out at `from`, into `commit`'s (both read from the packs of its `.git`):
 * what changed or went is taken away, the rest stays as it is, what is new is written. `onFiles` is given every regular
 * file of `commit` as the clone's writer gives them (see CloneSink). Returns as writeWorktree does; null, having changed
 * nothing, when the tree cannot be used: the packs no longer hold `from` (they started over from a whole tree), or a
 * file or link that would stay is not as `from` has it (a removal cut short, a machine that stopped before the disk
 * had the tree). The caller then writes the tree afresh.
 */
export async function updateKeptTree(
  dir: string,
  from: string,
  commit: string,
  onFiles?: (files: ClonedFile[]) => Promise<void>,
): Promise<{ files: number; folders: string[] } | null> {
  const gitDir = path.join(dir, ".git");
  const before = await listCommit(gitDir, from).catch(() => null);
  if (!before) return null;
  const after = from === commit ? before : await listCommit(gitDir, commit);
  const wanted = new Map(after.files.map((file) => [file.rel, file]));
  const folders = new Set(after.folders);
  const wasFolders = new Set(before.folders);
  // A file of the kept tree stays when the commit holds it as it is, and not in a folder the commit no longer has.
  const staying = before.files.filter((file) => {
    const now = wanted.get(file.rel);
    return now !== undefined && now.oid === file.oid && now.mode === file.mode && !goneBelow(file.rel, wasFolders, folders);
  });
  const stayed = new Set(staying.map((file) => file.rel));
  const objects = new GitObjects(gitDir);
  try {
    // What stays is checked against its blob first, and its bytes kept for `onFiles`: nothing is changed until all hold.
    const held = new Map<string, Buffer>();
    const whole = await mapBounded(staying, PARALLEL, async (file) => {
      const at = path.join(dir, file.rel);
      const stat = await fs.promises.lstat(at).catch(() => undefined);
      if (file.mode === LINK) return stat?.isSymbolicLink() === true && (await fs.promises.readlink(at)) === checkedBlob(objects, file.oid).toString("utf8");
      if (!stat?.isFile() || !sameKind(stat, file)) return false;
      const bytes = await fs.promises.readFile(at);
      held.set(file.rel, bytes);
      return gitBlobId(bytes) === file.oid;
    });
    if (whole.includes(false)) return null;
    // A folder the commit no longer has goes with what it holds; then a file that went, or changed its blob or mode.
    for (const rel of before.folders) if (!folders.has(rel)) await fs.promises.rm(path.join(dir, rel), { recursive: true, force: true });
    await mapBounded(
      before.files.filter((file) => !stayed.has(file.rel)),
      PARALLEL,
      (file) => fs.promises.rm(path.join(dir, file.rel), { recursive: true, force: true }),
    );
    await makeFolders(dir, after.folders);
    await mapBounded(
      after.files.filter((file) => !stayed.has(file.rel)),
      PARALLEL,
      (file) => writeFile(dir, file, checkedBlob(objects, file.oid)),
    );
    if (onFiles) {
      const regular = after.files.filter((file) => file.mode !== LINK);
      for (let start = 0; start < regular.length; start += BATCH_FILES) {
        const batch = regular.slice(start, start + BATCH_FILES).map(({ rel, oid }) => ({ path: rel, oid, bytes: held.get(rel) ?? checkedBlob(objects, oid) }));
        await onFiles(batch);
      }
    }
  } finally {
    objects.close();
  }
  return { files: after.files.length, folders: after.folders };
}

/** Whether `rel` lies in a folder of `was` that `now` no longer has (it goes with that folder). */
function goneBelow(rel: string, was: ReadonlySet<string>, now: ReadonlySet<string>): boolean {
  for (let slash = rel.lastIndexOf("/"); slash > 0; slash = rel.lastIndexOf("/", slash - 1)) {
    const folder = rel.slice(0, slash);
    if (!now.has(folder) && was.has(folder)) return true;
  }
  return false;
}

/**
 * Keeps the checkout at `dir` as the repository's work tree for the next job, as `commit`'s tree exactly: whatever
 * is there that the commit does not hold goes (a file the job wrote, a link where a folder was, a fifo, a name that is
 * not UTF-8), each file the commit holds is compared with its blob by content, owner and mode and written again when
 * it differs, folders get the clone's modes, and nothing is followed through a link. The commit's trees and the blobs
 * written are checked against their ids. Returns whether it was kept; false (the caller removes `dir`) when the cache
 * is not this user's alone, holds no objects for the repository, has a tree kept already, the tree is too large, or a
 * folder is not this user's.
 */
export async function putBackTree(cache: ObjectCache, url: string, dir: string, commit: string): Promise<boolean> {
  const folder = folderOf(cache, url);
  if (!privateFolder(cache.dir) || !fs.existsSync(folder) || fs.existsSync(path.join(folder, KEPT_TREE))) return false;
  const root = fs.lstatSync(dir);
  if (!root.isDirectory() || !ours(root)) return false;
  fs.chmodSync(dir, 0o700);
  const gitDir = path.join(dir, ".git");
  const { files, folders } = await listCommit(gitDir, commit, { checked: true });
  const bytes = await restoreTree(dir, gitDir, files, folders);
  if (bytes === null || bytes > cache.maxBytes / MAX_SHARE) return false;
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

/**
 * Makes the tree at `dir` exactly the files and folders listed (see putBackTree); returns the bytes of its files, or
 * null when a folder the commit holds is not this user's (the tree is then not kept).
 */
async function restoreTree(dir: string, gitDir: string, files: ListedFile[], folders: string[]): Promise<number | null> {
  const wanted = new Map(files.map((file) => [file.rel, file]));
  const wantedFolders = new Set(folders);
  // What is there and not listed goes; a folder is entered only when it is one (a directory entry's own type, never a
  // link's target). Names are read as bytes: one that is not UTF-8 no commit holds (see checkoutNames), and read as a
  // string it would name another path than its own.
  const walk = async (rel: string): Promise<void> => {
    const at = path.join(dir, rel);
    for (const entry of await fs.promises.readdir(at, { withFileTypes: true, encoding: "buffer" })) {
      let name: string;
      try {
        name = utf8.decode(entry.name);
      } catch {
        await fs.promises.rm(Buffer.concat([Buffer.from(`${at}/`), entry.name]), { recursive: true, force: true });
        continue;
      }
      const child = rel ? `${rel}/${name}` : name;
      if (child === ".git") continue;
      if (entry.isDirectory() && wantedFolders.has(child)) await walk(child);
      else if ((entry.isFile() || entry.isSymbolicLink()) && wanted.has(child)) continue;
      else await fs.promises.rm(path.join(dir, child), { recursive: true, force: true });
    }
  };
  await walk("");
  await makeFolders(dir, folders);
  for (const rel of folders) {
    const stat = fs.lstatSync(path.join(dir, rel));
    if (!ours(stat)) return null;
    if ((stat.mode & FOREIGN_BITS) !== 0) fs.chmodSync(path.join(dir, rel), 0o755);
  }
  const objects = new GitObjects(gitDir);
  let bytes = 0;
  try {
    await mapBounded(files, PARALLEL, async (file) => {
      const at = path.join(dir, file.rel);
      const stat = await fs.promises.lstat(at).catch(() => undefined);
      if (file.mode === LINK) {
        const target = checkedBlob(objects, file.oid).toString("utf8");
        if (stat?.isSymbolicLink() && ours(stat) && (await fs.promises.readlink(at)) === target) return;
      } else if (stat?.isFile() && sameKind(stat, file)) {
        const held = await fs.promises.readFile(at);
        if (gitBlobId(held) === file.oid) {
          bytes += held.length;
          return;
        }
      }
      if (stat) await fs.promises.rm(at, { recursive: true, force: true });
      const blob = checkedBlob(objects, file.oid);
      if (file.mode !== LINK) bytes += blob.length;
      await writeFile(dir, file, blob);
    });
  } finally {
    objects.close();
  }
  return bytes;
}

/** Whether a regular file is as the clone writes it: this user's, one link to it, the executable bit as `file` says, no other bit the clone never sets. */
function sameKind(stat: fs.Stats, file: ListedFile): boolean {
  return ours(stat) && stat.nlink === 1 && (stat.mode & FOREIGN_BITS) === 0 && ((stat.mode & 0o100) !== 0) === (file.mode === EXECUTABLE);
}

/** The blob `oid` from the packs, checked against its id. */
function checkedBlob(objects: GitObjects, oid: string): Buffer {
  return checked(oid, "blob", objects.readAs(oid, "blob"));
}

/** `data`, once its id is checked to be `oid`. */
function checked(oid: string, type: PackedObject["type"], data: Buffer): Buffer {
  if (gitObjectId(type, data) !== oid) throw new Error(`the ${type} read as ${oid} is not that object: the clone's packs are damaged`);
  return data;
}

/** Makes the folders (parents first, as listed) that are not there; what stands at a folder's path and is not one goes first. */
async function makeFolders(dir: string, folders: string[]): Promise<void> {
  for (const rel of folders) {
    const at = path.join(dir, rel);
    const stat = await fs.promises.lstat(at).catch(() => undefined);
    if (stat?.isDirectory()) continue;
    if (stat) await fs.promises.rm(at, { recursive: true, force: true });
    await fs.promises.mkdir(at);
  }
}

/** Writes one file of a tree as the clone's writer does: a link as a link, never through a link or onto a file there. */
async function writeFile(dir: string, { rel, mode }: ListedFile, blob: Buffer): Promise<void> {
  const at = path.join(dir, rel);
  if (mode === LINK) return fs.promises.symlink(blob.toString("utf8"), at);
  await fs.promises.writeFile(at, blob, { mode: mode === EXECUTABLE ? 0o755 : 0o644, flag: "wx" });
}

/** Takes everything out of `dir` but the entry `keep`, leaving the folder. */
export async function emptyFolder(dir: string, keep?: string): Promise<void> {
  for (const name of await fs.promises.readdir(dir)) if (name !== keep) await fs.promises.rm(path.join(dir, name), { recursive: true, force: true });
}
