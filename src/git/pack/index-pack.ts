import zlib from "node:zlib";
import { gitHash, gitObjectId } from "../git-object-id.js";
import { sliceWork, type Pause } from "../../lib/slice-work.js";
import { applyDelta } from "./apply-delta.js";
import { BaseCache, CutShort, inflateAt, OBJECT_TYPES, readEntryHeader, type EntryHeader } from "./pack-entry.js";
import { appendToPack, hashPack, packRange, type PackBytes } from "./pack-file.js";

/** One object of a pack, named and whole (a delta applied to its base). */
export interface PackObject {
  oid: string;
  type: string;
  data: Buffer;
}

/** One entry of a pack as indexing sees it, from `start` up to `end`; `oid` is set once the entry is resolved. */
export interface PackEntry extends EntryHeader {
  start: number;
  end: number;
  crc: number;
  oid?: string;
}

/** Shown each object of a pack as it is resolved. */
export type VisitObject = (object: PackObject) => void;

/** The signature and version of a pack's first 12 bytes, checked; its object count. */
export function readPackHeader(head: Buffer): number {
  if (head.length < 12 || head.toString("latin1", 0, 4) !== "PACK") throw new Error("corrupt pack: it does not start with 'PACK'");
  const version = head.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`corrupt pack: version ${version} is not one git writes`);
  return head.readUInt32BE(8);
}

/**
 * Reads the entry at `start` from `bytes`, which hold the pack from its byte `origin` on: its header and extent,
 * inflated to check its size; a whole object is named and shown to `visit`. Throws CutShort when its bytes end first.
 */
export function readEntry(bytes: Buffer, origin: number, start: number, visit: VisitObject | undefined): PackEntry {
  const header = readEntryHeader(bytes, start, origin);
  const inflated = inflateAt(bytes, header.data, header.size, origin);
  if (inflated.data.length !== header.size)
    throw new Error(`corrupt pack: the entry at byte ${start} inflates to ${inflated.data.length} bytes, its header says ${header.size}`);
  const end = header.data + inflated.used;
  // A whole object is named now, while it is inflated; deltas wait for their bases.
  const oid = header.base === undefined ? gitObjectId(OBJECT_TYPES[header.type]!, inflated.data) : undefined;
  if (oid) visit?.({ oid, type: OBJECT_TYPES[header.type]!, data: inflated.data });
  return { ...header, start, end, crc: zlib.crc32(bytes.subarray(start - origin, end - origin)), oid };
}

// Bytes of a pack in a file read first for an entry: its header, and the whole of most entries' data.
const FIRST_READ = 64 * 1024;

/**
 * Reads the entry at `start` of a pack whose entries end at `end` (see readEntry). A pack in a file is read a range at
 * a time: its header first, then as many bytes as its data can take deflated, more if a stream is longer still.
 */
function readEntryOf(pack: PackBytes, start: number, end: number, visit: VisitObject | undefined): PackEntry {
  if (Buffer.isBuffer(pack)) return readEntry(pack.subarray(0, end), 0, start, visit);
  const head = pack.read(start, Math.min(end, start + FIRST_READ));
  const { size, data } = readEntryHeader(head, start, start);
  // Deflate's worst case: five bytes a block of stored data, and the stream's own header and checksum.
  for (let want = data - start + size + 5 * Math.ceil(size / 16_000) + 64; ; want *= 2) {
    const stop = Math.min(end, start + Math.max(want, FIRST_READ));
    try {
      return readEntry(stop - start <= head.length ? head : pack.read(start, stop), start, start, visit);
    } catch (error) {
      if (!(error instanceof CutShort) || stop === end) throw error;
    }
  }
}

/**
 * Reads every entry's header and extent, checking the pack's signature, version and checksum; whole objects are shown
 * to `visit`. `from` are the entries already read from the pack's start as it arrived (see PackArriving), the rest
 * following them.
 */
export async function readEntries(
  pack: PackBytes,
  pause: Pause,
  visit?: VisitObject,
  from: { entries: PackEntry[]; at: number } = { entries: [], at: 12 },
): Promise<PackEntry[]> {
  // A header and a checksum at least, as before any other check.
  if (pack.length < 32) throw new Error("corrupt pack: it does not start with 'PACK'");
  const count = readPackHeader(packRange(pack, 0, 12));
  const body = pack.length - 20;
  if (!(await hashPack(pack, body, pause)).equals(packRange(pack, body, pack.length))) throw new Error("corrupt pack: its checksum does not match its bytes");
  const entries = from.entries;
  let at = from.at;
  for (let i = entries.length; i < count; i++) {
    if (at >= body) throw new Error(`corrupt pack: it announces ${count} objects and holds ${i}`);
    const entry = readEntryOf(pack, at, body, visit);
    entries.push(entry);
    at = entry.end;
    await pause();
  }
  if (at !== body) throw new Error("corrupt pack: bytes follow its last object");
  return entries;
}

/**
 * Names every object of a pack, resolving deltas against their bases, and shows each object to `visit`: whole objects
 * in pack order, then deltas as they are resolved. A delta's base may come anywhere in the pack, after it too (git
 * accepts such packs); one the pack does not hold (a thin pack's) is asked of `external`. Returns the entries, each named.
 */
export async function resolvePack(pack: PackBytes, pause: Pause = sliceWork(), visit?: VisitObject, external?: ExternalBase): Promise<PackEntry[]> {
  return resolveEntries(pack, await readEntries(pack, pause, visit), { pause, visit, external });
}

/** An object of a pack, whole. */
type Whole = { type: string; data: Buffer };

/** How resolving a pack's deltas pauses, whom it shows each object, and where it looks for bases the pack lacks. */
export interface Resolving {
  pause: Pause;
  visit?: VisitObject | undefined;
  external?: ExternalBase | undefined;
}

/** Names the deltas among a pack's read entries (see resolvePack), showing each to `visit`. */
export async function resolveEntries(pack: PackBytes, entries: PackEntry[], { pause, visit, external }: Resolving): Promise<PackEntry[]> {
  const byStart = new Map(entries.map((entry) => [entry.start, entry]));
  const byOid = new Map<string, PackEntry>();
  for (const entry of entries) if (entry.oid) byOid.set(entry.oid, entry);
  const outside = new Map<string, Whole>();
  // Inflated objects that an ofs-delta uses as its base, kept while there is room.
  const bases = new Set(entries.flatMap((entry) => (typeof entry.base === "number" ? [entry.base] : [])));
  const resolved = new BaseCache<Whole>();
  // The object of an entry, or the id of the base it waits for: a ref-delta's base that is not named yet.
  const resolve = (entry: PackEntry): Whole | string => {
    const known = resolved.get(entry.start);
    if (known) return known;
    let object: Whole;
    const inflated = inflateAt(packRange(pack, entry.data, entry.end), entry.data, entry.size, entry.data).data;
    if (entry.base === undefined) {
      object = { type: OBJECT_TYPES[entry.type]!, data: inflated };
    } else {
      const base = typeof entry.base === "number" ? byStart.get(entry.base) : byOid.get(entry.base);
      if (!base && typeof entry.base === "number") throw new Error(`corrupt pack: the delta at byte ${entry.start} names a base the pack does not hold`);
      const from = base ? resolve(base) : (outside.get(entry.base as string) ?? (entry.base as string));
      if (typeof from === "string") return from;
      object = { type: from.type, data: applyDelta(from.data, inflated) };
    }
    if (bases.has(entry.start)) resolved.set(entry.start, object);
    return object;
  };
  // Deltas waiting for a base, by its id: named as soon as it is.
  const waiting = new Map<string, PackEntry[]>();
  const name = async (first: PackEntry) => {
    for (const ready = [first]; ready.length > 0;) {
      const entry = ready.pop()!;
      const object = resolve(entry);
      if (typeof object === "string") {
        const waiters = waiting.get(object);
        if (waiters) waiters.push(entry);
        else waiting.set(object, [entry]);
        continue;
      }
      entry.oid = gitObjectId(object.type, object.data);
      byOid.set(entry.oid, entry);
      visit?.({ oid: entry.oid, ...object });
      ready.push(...(waiting.get(entry.oid) ?? []));
      waiting.delete(entry.oid);
      await pause();
    }
  };
  for (const entry of entries) if (!entry.oid) await name(entry);
  // What is left waits for bases the pack does not hold: a thin pack's, found outside it, or none.
  for (let found = true; found && waiting.size > 0;) {
    found = false;
    for (const [oid, waiters] of [...waiting]) {
      const object = external?.(oid);
      if (!object) continue;
      found = true;
      outside.set(oid, object);
      waiting.delete(oid);
      for (const waiter of waiters) await name(waiter);
    }
  }
  const stuck = [...waiting.values()].flat().sort((a, b) => a.start - b.start)[0];
  if (stuck) throw new Error(`corrupt pack: the delta at byte ${stuck.start} names a base the pack does not hold`);
  return entries;
}

/** An object a thin pack's delta is based on, found outside it (in the packs a clone already holds), or null. */
export type ExternalBase = (oid: string) => { type: string; data: Buffer } | null;

/** A whole object's pack entry header: the type in bits 4–6 of the first byte, the size in groups of 7 bits, low first. */
function wholeEntryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
  }
  return Buffer.from(bytes);
}

/** The name git gives a pack's files: `pack-` and the pack's checksum, its last 20 bytes, in hex. */
export function packName(pack: PackBytes): string {
  return `pack-${packRange(pack, pack.length - 20, pack.length).toString("hex")}`;
}

/**
 * Makes a thin pack whole, as `git index-pack --fix-thin` does, and indexes it: the objects its deltas are based on
 * that it does not hold are found by `external` and appended whole, and the object count and checksum rewritten. A
 * pack kept on disk must hold its deltas' bases (git reads no other pack for them). A pack that missed nothing (a
 * whole tree, when the server did not know the commit asked with) is resolved once, not again for its index; throws
 * when a base is found nowhere.
 */
export async function indexThinPack(thin: PackBytes, external: ExternalBase, pause: Pause = sliceWork()): Promise<{ pack: PackBytes; index: Buffer }> {
  const missing = new Map<string, { type: string; data: Buffer }>();
  const entries = await resolvePack(thin, pause, undefined, (oid) => {
    const object = missing.get(oid) ?? external(oid);
    if (object) missing.set(oid, object);
    return object;
  });
  if (missing.size === 0) return { pack: thin, index: indexOfEntries(entries, thin) };
  const appended = [...missing.values()].flatMap(({ type, data }) => [
    wholeEntryHeader(OBJECT_TYPES.indexOf(type as never), data.length),
    zlib.deflateSync(data),
  ]);
  const pack = await appendToPack(thin, appended, missing.size, pause);
  return { pack, index: await indexPack(pack, pause) };
}

/**
 * Names every object of a pack (see resolvePack) and writes its version-2 index (`.idx`), as `git index-pack` does:
 * the object ids sorted, with each entry's CRC-32 and offset, then the pack's checksum and the index's own.
 * Inflating with Node's zlib, this takes a fraction of the time isomorphic-git's JavaScript inflate takes over the
 * same pack. `visit` sees every object as it is named (see resolvePack).
 */
export async function indexPack(pack: PackBytes, pause: Pause = sliceWork(), visit?: VisitObject): Promise<Buffer> {
  return indexOfEntries(await resolvePack(pack, pause, visit), pack);
}

/** The index of a pack whose entries resolvePack already named, without resolving it again. */
export function indexOfEntries(entries: PackEntry[], pack: PackBytes): Buffer {
  return writeIndex(entries, packRange(pack, pack.length - 20, pack.length));
}

/** The bytes of a version-2 pack index for named entries. */
function writeIndex(entries: PackEntry[], packChecksum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => (a.oid! < b.oid! ? -1 : a.oid! > b.oid! ? 1 : 0));
  const count = sorted.length;
  const large = sorted.filter((entry) => entry.start >= 0x80000000);
  const index = Buffer.alloc(8 + 256 * 4 + count * (20 + 4 + 4) + large.length * 8 + 40);
  index.writeUInt32BE(0xff744f63, 0);
  index.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const entry of sorted) fanout[parseInt(entry.oid!.slice(0, 2), 16)]!++;
  let total = 0;
  for (let byte = 0; byte < 256; byte++) index.writeUInt32BE((total += fanout[byte]!), 8 + byte * 4);
  const names = 8 + 256 * 4;
  const crcs = names + count * 20;
  const offsets = crcs + count * 4;
  let largeAt = offsets + count * 4;
  for (const [i, entry] of sorted.entries()) {
    index.write(entry.oid!, names + i * 20, "hex");
    index.writeUInt32BE(entry.crc, crcs + i * 4);
    if (entry.start < 0x80000000) {
      index.writeUInt32BE(entry.start, offsets + i * 4);
    } else {
      index.writeUInt32BE((0x80000000 | ((largeAt - offsets - count * 4) / 8)) >>> 0, offsets + i * 4);
      index.writeBigUInt64BE(BigInt(entry.start), largeAt);
      largeAt += 8;
    }
  }
  packChecksum.copy(index, largeAt);
  gitHash()
    .update(index.subarray(0, largeAt + 20))
    .digest()
    .copy(index, largeAt + 20);
  return index;
}
