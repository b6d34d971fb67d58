import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Where a worker keeps the objects of the repositories it cloned, so that the next clone of one asks the server only
 * for what changed since (see fetchShallowPack's `have`). Each repository has a folder named by a hash of its address:
 * the packs its clones fetched, and `head`, the commit they hold with its whole tree. Packs are content-named and
 * never changed once written, so a checkout links them rather than copying.
 */
export interface ObjectCache {
  dir: string;
  /** Most bytes all repositories' packs may take; the repositories used longest ago go first. */
  maxBytes: number;
  /** Most packs one repository gathers; past that, its next clone fetches the whole tree again and starts over. */
  maxPacks: number;
}

/** The packs a cache holds for one repository, and the commit whose tree they hold whole. */
export interface CachedObjects {
  folder: string;
  head: string;
  /** Pack names (`pack-<checksum>`), each with its `.pack` and `.idx` in `folder`. */
  packs: string[];
}

const HEAD = "head";
/** Most bytes the object cache takes unless MAGIS_OBJECT_CACHE_MB says otherwise. */
export const DEFAULT_OBJECT_CACHE_MB = 1024;
/** Packs one repository gathers before its next clone starts over from its whole tree. */
const MAX_PACKS = 16;

/**
 * The object cache a worker keeps under `workDir` (`magis-objects`), as MAGIS_OBJECT_CACHE_MB bounds it (default
 * 1,024; 0 keeps none). Throws, saying what to set, when the variable is not a whole number.
 */
export function objectCacheFrom(env: NodeJS.ProcessEnv, workDir: string): ObjectCache | undefined {
  const setting = env.MAGIS_OBJECT_CACHE_MB?.trim();
  const mb = setting === undefined || setting === "" ? DEFAULT_OBJECT_CACHE_MB : Number(setting);
  if (!Number.isInteger(mb) || mb < 0) {
    throw new Error(`MAGIS_OBJECT_CACHE_MB is '${setting}': set it to the megabytes of repository objects a worker may keep between jobs (a whole number; 0 keeps none)`);
  }
  return mb === 0 ? undefined : { dir: path.join(workDir, "magis-objects"), maxBytes: mb * 2 ** 20, maxPacks: MAX_PACKS };
}
const PACK_NAME = /^(pack-[0-9a-f]{40})\.pack$/;

/** The folder of a repository's objects: a hash of its address, so no address can name a path. */
function folderOf(cache: ObjectCache, url: string): string {
  return path.join(cache.dir, crypto.createHash("sha256").update(url.replace(/\/+$/, "")).digest("hex").slice(0, 32));
}

/** What the cache holds for `url`, or null when it holds nothing usable (no head, no pack, or more packs than it keeps). */
export function cachedObjects(cache: ObjectCache, url: string): CachedObjects | null {
  const folder = folderOf(cache, url);
  let head: string;
  let names: string[];
  try {
    head = fs.readFileSync(path.join(folder, HEAD), "utf8").trim();
    names = fs.readdirSync(folder);
  } catch {
    return null;
  }
  const packs = names.flatMap((name) => {
    const pack = PACK_NAME.exec(name)?.[1];
    return pack && names.includes(`${pack}.idx`) ? [pack] : [];
  });
  if (!/^[0-9a-f]{40}$/.test(head) || packs.length === 0 || packs.length > cache.maxPacks) return null;
  return { folder, head, packs };
}

/**
 * Puts the packs the cache holds for `url` into a clone's pack folder (hard links where the file system allows, copies
 * where not) and says what they hold; null, with nothing left in the folder, when the cache holds nothing usable or
 * another job replaced the repository's objects meanwhile (the head read again differs).
 */
export function linkCachedObjects(cache: ObjectCache, url: string, packDir: string): CachedObjects | null {
  const cached = cachedObjects(cache, url);
  if (!cached) return null;
  try {
    linkPacks(cached, packDir);
    if (fs.readFileSync(path.join(cached.folder, HEAD), "utf8").trim() === cached.head) return cached;
  } catch {
    // Removed or replaced while being linked, or damaged: the next clone that keeps its pack replaces them.
    forgetObjects(cache, url);
  }
  for (const name of fs.readdirSync(packDir)) fs.rmSync(path.join(packDir, name), { force: true });
  return null;
}

/** Whether a pack and its index are whole: each file's last 20 bytes are the SHA-1 of what comes before, and the pack's names it. */
function packIsWhole(folder: string, pack: string): boolean {
  const sound = (bytes: Buffer) => bytes.length > 20 && crypto.createHash("sha1").update(bytes.subarray(0, -20)).digest().equals(bytes.subarray(-20));
  const bytes = fs.readFileSync(path.join(folder, `${pack}.pack`));
  const index = fs.readFileSync(path.join(folder, `${pack}.idx`));
  const checksum = bytes.subarray(-20);
  return sound(bytes) && sound(index) && pack === `pack-${checksum.toString("hex")}` && index.subarray(-40, -20).equals(checksum);
}

function linkPacks(cached: CachedObjects, packDir: string): void {
  // A damaged pack would fail the clone that used it; checked, it only costs a fetch of the whole tree.
  if (!cached.packs.every((pack) => packIsWhole(cached.folder, pack))) throw new Error("a cached pack is damaged");
  for (const pack of cached.packs) {
    for (const ext of [".pack", ".idx"]) {
      const from = path.join(cached.folder, pack + ext);
      const to = path.join(packDir, pack + ext);
      try {
        fs.linkSync(from, to);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
        fs.copyFileSync(from, to);
      }
    }
  }
}

/** Writes a file whole or not at all: to a temporary name, then renamed over. */
function writeWhole(file: string, data: Buffer | string): void {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(temporary, data);
  fs.renameSync(temporary, file);
}

/**
 * Keeps a clone's pack for the repository at `url`, now at `head`. With `added`, the pack holds what `head` adds to
 * the packs the clone started from (those the cache already holds); without, it holds `head`'s whole tree and
 * replaces whatever the repository's folder held. Then the repositories used longest ago are removed until all fit.
 */
export function keepObjects(cache: ObjectCache, url: string, head: string, pack: { name: string; pack: Buffer; index: Buffer }, added: boolean): void {
  const folder = folderOf(cache, url);
  if (!added) fs.rmSync(folder, { recursive: true, force: true });
  // A private repository's objects, readable by this user alone, as its checkouts are (mkdtemp).
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  // The index first: a pack is only listed once both are there.
  writeWhole(path.join(folder, `${pack.name}.idx`), pack.index);
  writeWhole(path.join(folder, `${pack.name}.pack`), pack.pack);
  writeWhole(path.join(folder, HEAD), `${head}\n`);
  evict(cache);
}

/** Marks a repository's objects as used now, so that eviction takes others first. */
export function touchObjects(cached: CachedObjects): void {
  const now = new Date();
  fs.utimesSync(path.join(cached.folder, HEAD), now, now);
}

/** Forgets what the cache holds for `url` (its packs could not be used). */
export function forgetObjects(cache: ObjectCache, url: string): void {
  fs.rmSync(folderOf(cache, url), { recursive: true, force: true });
}

/** Removes the repositories whose head was written longest ago until the packs of all fit in `maxBytes`. */
function evict(cache: ObjectCache): void {
  const folders = fs.readdirSync(cache.dir, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory()) return [];
    const folder = path.join(cache.dir, entry.name);
    try {
      const used = fs.statSync(path.join(folder, HEAD)).mtimeMs;
      const bytes = fs.readdirSync(folder).reduce((sum, name) => sum + fs.statSync(path.join(folder, name)).size, 0);
      return [{ folder, used, bytes }];
    } catch {
      // Being written or removed by another job: left alone.
      return [];
    }
  });
  let total = folders.reduce((sum, { bytes }) => sum + bytes, 0);
  for (const { folder, bytes } of folders.sort((a, b) => a.used - b.used)) {
    if (total <= cache.maxBytes) break;
    fs.rmSync(folder, { recursive: true, force: true });
    total -= bytes;
  }
}
