import fs from "node:fs";
import path from "node:path";
import { mapBounded } from "../lib/map-bounded.js";
import { removeTree } from "../lib/remove-tree.js";
import { checkedObject, gitBlobId } from "./git-object-id.js";
import { evict, folderOf, keepQuietly, KEPT_TREE, KEPT_TREE_RECORD as RECORD, privateFolder, type ObjectCache } from "./object-cache.js";
import { EXECUTABLE, fileModeOf, LINK } from "./pack/parse-tree.js";
import { GitObjects } from "./read-git-objects.js";
import { listCommit, writeTreeEntry, type ClonedFile, type ListedFile } from "./write-worktree.js";

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

// A leading byte-order mark is part of a name, not something to drop.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The record's form: a tree whose record has another (or none) is not used. */
const RECORD_VERSION = 1;

/** Most bytes of kept files held between their check and their handing over; past it they are read again (and checked again). */
const MAX_HELD_BYTES = 128 * 2 ** 20;

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
    const read =
      held.isFile() && root.isDirectory() && ours(root) ? (JSON.parse(fs.readFileSync(record, "utf8")) as { version?: unknown; commit?: unknown }) : {};
    fs.rmSync(record, { recursive: true, force: true });
    if (read.version === RECORD_VERSION && typeof read.commit === "string" && /^[0-9a-f]{40}$/.test(read.commit)) return read.commit;
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
 * nothing, when the tree cannot be used: the packs no longer hold `from` (they started over from a whole tree), it
 * holds an entry `from` does not (or of another kind, or with modes the clone never gives), or a file or link that
 * would stay is not as `from` has it (a removal cut short, a machine that stopped before the disk had the tree). The
 * caller then writes the tree afresh.
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
  // A file of the kept tree stays when the commit holds it as it is (then it holds its folders too).
  const staying = before.files.filter((file) => {
    const now = wanted.get(file.rel);
    return now !== undefined && now.oid === file.oid && now.mode === file.mode;
  });
  const stayed = new Set(staying.map((file) => file.rel));
  // Nothing is there that `from` does not hold, as it holds it: no stray file, no link where a folder is.
  if (!(await holdsOnly(dir, before))) return null;
  const objects = new GitObjects(gitDir);
  try {
    // What stays is checked against its blob first, and its bytes kept for `onFiles` up to a bound: nothing is changed
    // until all hold.
    const held = new Map<string, Buffer>();
    let heldBytes = 0;
    const whole = await mapBounded(staying, PARALLEL, async (file) => {
      const at = path.join(dir, file.rel);
      const stat = await fs.promises.lstat(at).catch(() => undefined);
      if (file.mode === LINK) return stat?.isSymbolicLink() === true && (await fs.promises.readlink(at)) === checkedBlob(objects, file.oid).toString("utf8");
      if (!stat?.isFile() || !fileFits(stat, file)) return false;
      const bytes = await fs.promises.readFile(at);
      if (onFiles && heldBytes + bytes.length <= MAX_HELD_BYTES) {
        held.set(file.rel, bytes);
        heldBytes += bytes.length;
      }
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
      (file) => writeTreeEntry(path.join(dir, file.rel), file.mode, checkedBlob(objects, file.oid)),
    );
    if (onFiles) {
      const regular = after.files.filter((file) => file.mode !== LINK);
      for (let start = 0; start < regular.length; start += BATCH_FILES) {
        const batch = await mapBounded(regular.slice(start, start + BATCH_FILES), PARALLEL, async ({ rel, oid }) => ({
          path: rel,
          oid,
          bytes: held.get(rel) ?? (stayed.has(rel) ? checkedObject(oid, "blob", await fs.promises.readFile(path.join(dir, rel))) : checkedBlob(objects, oid)),
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
  fs.writeFileSync(path.join(dir, RECORD), `${JSON.stringify({ version: RECORD_VERSION, commit, bytes })}\n`, { mode: 0o600, flag: "wx" });
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
  // What is there and not listed goes, a name that is not UTF-8 too (see entriesOf); a folder is entered only when it
  // is one (a directory entry's own type, never a link's target), and gets the clone's mode before it is entered, so
  // that what it holds can be taken away.
  let foreign = false;
  const walk = async (rel: string): Promise<void> => {
    for (const { entry, child, raw } of await entriesOf(dir, rel)) {
      if (child === undefined) {
        await fs.promises.rm(raw, { recursive: true, force: true });
        continue;
      }
      if (entry.isDirectory() && wantedFolders.has(child)) {
        if (!fitFolder(path.join(dir, child))) foreign = true;
        else await walk(child);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && wanted.has(child)) continue;
      // A folder left without the owner's write or search permission is opened up first (see removeTree).
      else await removeTree(path.join(dir, child));
    }
  };
  await walk("");
  if (foreign) return null;
  await makeFolders(dir, folders);
  for (const rel of folders) if (!fitFolder(path.join(dir, rel))) return null;
  const objects = new GitObjects(gitDir);
  let bytes = 0;
  try {
    await mapBounded(files, PARALLEL, async (file) => {
      const at = path.join(dir, file.rel);
      const stat = await fs.promises.lstat(at).catch(() => undefined);
      if (file.mode === LINK) {
        const target = checkedBlob(objects, file.oid).toString("utf8");
        if (stat?.isSymbolicLink() && ours(stat) && (await fs.promises.readlink(at)) === target) return;
      } else if (stat?.isFile() && ours(stat) && stat.nlink === 1) {
        const held = await fs.promises.readFile(at);
        if (gitBlobId(held) === file.oid) {
          // Its bytes as the commit has them, with a mode the clone would not give (read-only, setuid): the clone's.
          if (!fileFits(stat, file)) await fs.promises.chmod(at, fileModeOf(file.mode));
          bytes += held.length;
          return;
        }
      }
      if (stat) await fs.promises.rm(at, { recursive: true, force: true });
      const blob = checkedBlob(objects, file.oid);
      if (file.mode !== LINK) bytes += blob.length;
      await writeTreeEntry(at, file.mode, blob);
    });
  } finally {
    objects.close();
  }
  return bytes;
}

/**
 * Whether a regular file is as the clone writes it: this user's, one link to it, readable and writable by its owner,
 * the executable bit as `file` says, and no bit the clone never sets (see FOREIGN_BITS).
 */
function fileFits(stat: fs.Stats, file: ListedFile): boolean {
  return (
    ours(stat) &&
    stat.nlink === 1 &&
    (stat.mode & FOREIGN_BITS) === 0 &&
    (stat.mode & 0o600) === 0o600 &&
    ((stat.mode & 0o100) !== 0) === (file.mode === EXECUTABLE)
  );
}

/** Whether a folder is as the clone makes it: this user's, open to its owner, and no bit the clone never sets. */
function folderFits(stat: fs.Stats): boolean {
  return ours(stat) && (stat.mode & FOREIGN_BITS) === 0 && (stat.mode & 0o700) === 0o700;
}

/** Gives the folder at `at` the clone's mode where it has another; false when it is not this user's (it cannot be trusted). */
function fitFolder(at: string): boolean {
  const stat = fs.lstatSync(at);
  if (!ours(stat)) return false;
  if (!folderFits(stat)) fs.chmodSync(at, 0o755);
  return true;
}

/**
 * Whether the tree at `dir` holds nothing but entries of `tree` (the `.git` at its root aside), each of its kind (a
 * folder a real folder with the clone's modes, a file a regular file or a link as listed); names read as bytes.
 */
async function holdsOnly(dir: string, tree: { files: ListedFile[]; folders: string[] }): Promise<boolean> {
  const files = new Map(tree.files.map((file) => [file.rel, file]));
  const folders = new Set(tree.folders);
  const walk = async (rel: string): Promise<boolean> => {
    for (const { entry, child } of await entriesOf(dir, rel)) {
      if (child === undefined) return false;
      if (entry.isDirectory()) {
        if (!folders.has(child) || !folderFits(fs.lstatSync(path.join(dir, child))) || !(await walk(child))) return false;
        continue;
      }
      const file = files.get(child);
      if (!file || (file.mode === LINK ? !entry.isSymbolicLink() : !entry.isFile())) return false;
    }
    return true;
  };
  return walk("");
}

/** An entry of a folder of a tree on the disk, as entriesOf reads it. */
type TreeEntryOnDisk = { entry: fs.Dirent<Buffer>; child: string | undefined; raw: Buffer };

/**
 * The entries of the folder `rel` of the tree at `dir`, the `.git` at its root left out, each with its path in the
 * tree (`child`) and its own bytes' path (`raw`). Names are read as bytes: one that is not UTF-8 (`child` undefined)
 * no commit holds (see checkoutNames), and read as a string it would name another path than its own.
 */
async function entriesOf(dir: string, rel: string): Promise<TreeEntryOnDisk[]> {
  const at = path.join(dir, rel);
  const entries = await fs.promises.readdir(at, { withFileTypes: true, encoding: "buffer" });
  return entries.flatMap((entry): TreeEntryOnDisk[] => {
    const raw = Buffer.concat([Buffer.from(`${at}/`), entry.name]);
    let name: string;
    try {
      name = utf8.decode(entry.name);
    } catch {
      return [{ entry, child: undefined, raw }];
    }
    const child = rel ? `${rel}/${name}` : name;
    return child === ".git" ? [] : [{ entry, child, raw }];
  });
}

/** The blob `oid` from the packs, checked against its id. */
function checkedBlob(objects: GitObjects, oid: string): Buffer {
  return checkedObject(oid, "blob", objects.readAs(oid, "blob"));
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

/** Takes everything out of `dir` but the entry `keep`, leaving the folder; names read as bytes, so that none is missed. */
export async function emptyFolder(dir: string, keep?: string): Promise<void> {
  for (const name of await fs.promises.readdir(dir, { encoding: "buffer" })) {
    if (keep !== undefined && name.equals(Buffer.from(keep))) continue;
    await fs.promises.rm(Buffer.concat([Buffer.from(`${dir}/`), name]), { recursive: true, force: true });
  }
}
