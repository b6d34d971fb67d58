import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { sliceWork, type Pause } from "../lib/slice-work.js";
import { packName } from "./pack/index-pack.js";
import { checksumHolds, PackFile, type PackBytes } from "./pack/pack-file.js";
import { copyWhole, writeWhole } from "./write-whole.js";

/**
 * Where a worker keeps the objects of the repositories it cloned, so that the next clone of one asks the server only
 * for what changed since (see fetchShallowPack's `have`). Each repository has a folder named by a hash of its address:
 * the packs its clones fetched, and `head`, the manifest naming the commit whose whole tree they hold and the packs
 * that hold it. Packs are content-named and never changed once written, so a checkout links them rather than copying.
 * Its `history` folder keeps the branch's recent commits, so that the next history fetch asks only for the new ones
 * (see keepHistory); eviction takes a repository's objects and history together.
 */
export interface ObjectCache {
  dir: string;
  /** Most bytes all repositories' packs and histories may take; the repositories used longest ago go first. */
  maxBytes: number;
  /** Most packs one repository gathers; past that, its next clone fetches the whole tree again and starts over. */
  maxPacks: number;
  /** Longest a repository's objects and history stay unused before they are removed (see evict); no limit when absent. */
  maxAgeMs?: number;
}

/** The packs a cache holds for one repository, and the commit whose tree they hold whole. */
export interface CachedObjects {
  folder: string;
  head: string;
  /** Pack names (`pack-<checksum>`), each with its `.pack` and `.idx` in `folder`. */
  packs: string[];
}

// The manifest: the commit whose whole tree the kept packs hold, then the names of exactly those packs, a line each.
const HEAD = "head";
/** The folder of a repository's kept history, and its manifest (see keepHistory). */
export const KEPT_HISTORY = "history";
export const HISTORY_MANIFEST = "history.json";
export const PACK_NAME = /^pack-[0-9a-f]{40}$/;
/** The folder of a repository's kept work tree (see kept-worktree.ts), and the record in it that says its commit and bytes. */
export const KEPT_TREE = "worktree";
export const KEPT_TREE_RECORD = ".git";

/** Packs one repository gathers before its next clone starts over from its whole tree. */
const MAX_PACKS = 16;
export const DAY_MS = 24 * 3600 * 1000;

/**
 * The object cache a worker keeps under `workDir` (`magis-objects-<uid>`), as MAGIS_OBJECT_CACHE_MB bounds it (0 keeps
 * none) and MAGIS_OBJECT_CACHE_DAYS ages it (a repository no job used for that long is removed, so a worker does not
 * keep the code of a repository that stopped using the bot, or uninstalled it); both as readSettings read them.
 */
export function objectCacheFrom(settings: { objectCacheMb: number; objectCacheDays: number }, workDir: string): ObjectCache | undefined {
  const { objectCacheMb: mb, objectCacheDays: days } = settings;
  if (mb === 0) return undefined;
  // Named by the user too: in a temp folder other users share, each keeps its own (see privateFolder).
  const name = process.getuid === undefined ? "magis-objects" : `magis-objects-${process.getuid()}`;
  return { dir: path.join(workDir, name), maxBytes: mb * 2 ** 20, maxPacks: MAX_PACKS, maxAgeMs: days * DAY_MS };
}

/** The folder of a repository's objects: a hash of its address, so no address can name a path. */
export function folderOf(cache: ObjectCache, url: string): string {
  return path.join(cache.dir, crypto.createHash("sha256").update(url.replace(/\/+$/, "")).digest("hex").slice(0, 32));
}

/**
 * Whether the cache's folder is this user's alone: a directory (not a link) it owns that no one else may enter. A
 * folder someone else made first, say in a shared /tmp, could hand a checkout planted objects; it is not used.
 */
export function privateFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** What the manifest of a repository's folder says, or null when it is missing or malformed. */
function readManifest(folder: string): { head: string; packs: string[] } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(folder, HEAD), "utf8").trim().split("\n");
  } catch {
    return null;
  }
  const [head = "", ...packs] = lines;
  return /^[0-9a-f]{40}$/.test(head) && packs.length > 0 && packs.every((pack) => PACK_NAME.test(pack)) ? { head, packs } : null;
}

/** Whether every pack of a list is in the folder, with its index. */
export function allPresent(folder: string, packs: string[]): boolean {
  return packs.every((pack) => fs.existsSync(path.join(folder, `${pack}.pack`)) && fs.existsSync(path.join(folder, `${pack}.idx`)));
}

/** What the cache holds for `url`, or null when it holds nothing usable (no manifest, a pack it lists missing, more packs than it keeps). */
export function cachedObjects(cache: ObjectCache, url: string): CachedObjects | null {
  if (!privateFolder(cache.dir)) return null;
  const folder = folderOf(cache, url);
  const manifest = readManifest(folder);
  if (!manifest || manifest.packs.length > cache.maxPacks || !allPresent(folder, manifest.packs)) return null;
  return { folder, ...manifest };
}

/**
 * Puts the packs the cache holds for `url` into a clone's pack folder (hard links where the file system allows, copies
 * where not) and says what they hold; null, with nothing left in the folder, when the cache holds nothing usable, a
 * pack is damaged (checked by its SHA-1, in slices between pauses), or another job removed them meanwhile.
 */
export async function linkCachedObjects(cache: ObjectCache, url: string, packDir: string, pause: Pause = sliceWork()): Promise<CachedObjects | null> {
  const cached = cachedObjects(cache, url);
  if (!cached) return null;
  try {
    let whole = true;
    for (const pack of cached.packs) whole &&= await packIsWhole(cached.folder, pack, pause);
    if (!whole) {
      // Damaged: forgotten, so the whole clone this one becomes is kept in their place.
      forgetObjects(cache, url);
    } else {
      linkPacks(cached, packDir);
      // Used now: eviction takes others first.
      touchObjects(cached);
      return cached;
    }
  } catch {
    // Removed while being linked (a whole clone replacing them, or eviction): this clone fetches the whole tree.
  }
  for (const name of fs.readdirSync(packDir)) fs.rmSync(path.join(packDir, name), { force: true });
  return null;
}

/** Whether a pack and its index are whole: each file's checksum holds (the pack read from its file in slices), the pack's names it, and the index names the pack's. */
async function packIsWhole(folder: string, pack: string, pause: Pause): Promise<boolean> {
  const bytes = PackFile.open(path.join(folder, `${pack}.pack`));
  try {
    const index = await fs.promises.readFile(path.join(folder, `${pack}.idx`));
    return (
      pack === packName(bytes) &&
      index.subarray(-40, -20).equals(bytes.read(bytes.length - 20, bytes.length)) &&
      (await checksumHolds(index, pause)) &&
      (await checksumHolds(bytes, pause))
    );
  } finally {
    bytes.close();
  }
}

function linkPacks(cached: CachedObjects, packDir: string): void {
  for (const pack of cached.packs) {
    for (const ext of [".pack", ".idx"]) {
      const from = path.join(cached.folder, pack + ext);
      const to = path.join(packDir, pack + ext);
      try {
        fs.linkSync(from, to);
      } catch {
        // Another file system, or one without hard links.
        fs.copyFileSync(from, to);
      }
    }
  }
}

/**
 * Keeps a clone's pack for the repository at `url`, now at `head`. With `on`, the pack holds what `head` adds to those
 * kept packs (the ones the clone started from): it is kept beside them only if they are all still there, since
 * together they hold `head`'s whole tree. Without, it holds `head`'s whole tree and replaces whatever the repository's
 * folder held. Then the repositories used longest ago are removed until all fit. Never throws (see keepQuietly).
 */
export function keepObjects(cache: ObjectCache, { url, head, pack, on }: { url: string; head: string; pack: KeptPack; on: CachedObjects | null }): void {
  keepQuietly(() => {
    if (!privateFolder(cache.dir)) return;
    const folder = folderOf(cache, url);
    // Removed or replaced meanwhile (another clone's whole tree, eviction): this pack alone is not a whole tree.
    const packs = writePack(folder, pack, on?.packs ?? null, removeObjects);
    if (!packs) return;
    writeWhole(path.join(folder, HEAD), `${[head, ...packs].join("\n")}\n`);
    // Packs no manifest lists any more (a concurrent clone's, kept before this one) are left for the next whole clone.
    evict(cache);
  });
}

/** Keeping for the next job is worth a try, never a failed job (a full disk, another job removing the folder): the next job fetches it whole. */
export function keepQuietly(keep: () => void): void {
  try {
    keep();
  } catch {
    // Nothing kept, or less.
  }
}

/** A pack to keep: its name (`pack-<checksum>`), its bytes (in memory, or the file that holds them) and its index's. */
export interface KeptPack {
  name: string;
  pack: PackBytes;
  index: Buffer;
}

/**
 * Writes a pack into `folder` (made if need be): beside the packs named by `on` if they are all still there (nothing
 * is written otherwise, and null returned), or, without `on`, after `clear` emptied the folder of what it held. The
 * index goes first, then the pack; neither is read before a manifest lists it. Returns the packs that manifest is to list.
 */
export function writePack(folder: string, pack: KeptPack, on: string[] | null, clear: (folder: string) => void): string[] | null {
  if (on && !allPresent(folder, on)) return null;
  if (!on) clear(folder);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeWhole(path.join(folder, `${pack.name}.idx`), pack.index);
  if (Buffer.isBuffer(pack.pack)) writeWhole(path.join(folder, `${pack.name}.pack`), pack.pack);
  else copyWhole(pack.pack.file, path.join(folder, `${pack.name}.pack`));
  return on ? [...new Set([...on, pack.name])] : [pack.name];
}

/** Marks a repository's objects as used now, so that eviction takes others first. */
function touchObjects(cached: CachedObjects): void {
  const now = new Date();
  fs.utimesSync(path.join(cached.folder, HEAD), now, now);
}

/** Forgets the objects the cache holds for `url` (its packs could not be used); its kept history stays (see keepHistory). */
export function forgetObjects(cache: ObjectCache, url: string): void {
  try {
    removeObjects(folderOf(cache, url));
  } catch {
    // Not ours to remove: a whole clone's keep fails the same way and keeps nothing.
  }
}

/** Removes a repository folder's packs and manifest, and anything else a clone left there, but not its kept history. */
function removeObjects(folder: string): void {
  if (!fs.existsSync(folder)) return;
  for (const name of fs.readdirSync(folder)) {
    if (name !== KEPT_HISTORY) removeWhole(path.join(folder, name));
  }
}

/** Removes what another process may be removing too. */
function removeQuietly(target: string): void {
  try {
    fs.rmSync(target, { recursive: true, force: true });
  } catch {
    // Gone meanwhile, or not ours to remove: the next sweep tries again.
  }
}

/** Names a folder gets on its way out (see removeWhole). */
const REMOVING = ".removing-";

/**
 * Removes a file or folder by renaming it out of the way first (beside it, a REMOVING name), so that a removal cut
 * short (the process killed, another process's rename) never leaves a kept work tree with its record and without
 * some of its files under its own name, and a tree put back meanwhile at that name is not what is removed.
 */
function removeWhole(target: string): void {
  const away = path.join(path.dirname(target), `${REMOVING}${path.basename(target)}-${crypto.randomBytes(4).toString("hex")}`);
  try {
    fs.renameSync(target, away);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  fs.rmSync(away, { recursive: true, force: true });
}

/**
 * The bytes of the files in a folder and in the folders it holds, links not followed; a kept work tree's as its record
 * says (thousands of files are not walked at each keep).
 */
function bytesIn(folder: string): number {
  return fs.readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const file = path.join(folder, entry.name);
    // A removal a killed process left (see removeWhole) is finished, not counted.
    if (entry.name.startsWith(REMOVING)) {
      removeQuietly(file);
      return sum;
    }
    if (entry.isDirectory() && entry.name === KEPT_TREE) {
      const bytes = keptTreeBytes(file);
      if (bytes !== null) return sum + bytes;
    }
    return sum + (entry.isDirectory() ? bytesIn(file) : fs.lstatSync(file).size);
  }, 0);
}

/** The bytes a kept work tree's record says its files take, or null when it has no record that says so. */
function keptTreeBytes(tree: string): number | null {
  try {
    const record = path.join(tree, KEPT_TREE_RECORD);
    if (!fs.lstatSync(record).isFile()) return null;
    const { bytes } = JSON.parse(fs.readFileSync(record, "utf8")) as { bytes?: unknown };
    return typeof bytes === "number" && Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : null;
  } catch {
    return null;
  }
}

/** When a repository's objects or history were last used: its newest manifest, or the folder itself when a killed job left it with none. */
function lastUsed(folder: string): number {
  const times = [path.join(folder, HEAD), path.join(folder, KEPT_HISTORY, HISTORY_MANIFEST)].flatMap((file) => {
    try {
      return [fs.statSync(file).mtimeMs];
    } catch {
      return [];
    }
  });
  return times.length > 0 ? Math.max(...times) : fs.statSync(folder).mtimeMs;
}

/**
 * Removes the repositories no job used for `maxAgeMs`, then those used longest ago until the files of all fit in
 * `maxBytes` (their objects and their history alike), and says how many it removed. Called after each keep, by
 * keepObjects and keepHistory, and by a worker when it starts and every hour after (see sweepObjects). A folder that is
 * not this user's alone is left as it is (see privateFolder).
 */
export function evict(cache: ObjectCache, now = Date.now()): number {
  // A worker that never kept anything has no folder to make.
  if (!fs.existsSync(cache.dir) || !privateFolder(cache.dir)) return 0;
  const folders = fs.readdirSync(cache.dir, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory()) return [];
    const folder = path.join(cache.dir, entry.name);
    // On its way out: a removal a killed process left is finished here.
    if (entry.name.startsWith(REMOVING)) {
      removeQuietly(folder);
      return [];
    }
    try {
      return [{ folder, used: lastUsed(folder), bytes: bytesIn(folder) }];
    } catch {
      // Being removed by another job: left alone.
      return [];
    }
  });
  let total = folders.reduce((sum, { bytes }) => sum + bytes, 0);
  let removed = 0;
  for (const { folder, used, bytes } of folders.sort((a, b) => a.used - b.used)) {
    const stale = cache.maxAgeMs !== undefined && now - used > cache.maxAgeMs;
    if (!stale && total <= cache.maxBytes) break;
    removeWhole(folder);
    total -= bytes;
    removed++;
  }
  return removed;
}
