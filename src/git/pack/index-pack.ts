import { createHash } from "node:crypto";
import zlib from "node:zlib";
import { gitObjectId } from "../git-object-id.js";
import { sliceWork, type Pause } from "../../lib/slice-work.js";
import { applyDelta } from "./apply-delta.js";
import { BaseCache, CutShort, inflateAt, OBJECT_TYPES, readEntryHeader, type EntryHeader } from "./pack-entry.js";

/** One object of a pack, named and whole (a delta applied to its base). */
export interface PackObject {
  oid: string;
  type: string;
  data: Buffer;
}

/** One entry of a pack as indexing sees it; `oid` is set once the entry is resolved. */
export interface PackEntry extends EntryHeader {
  start: number;
  crc: number;
  oid?: string;
}

/** Shown each object of a pack as it is resolved. */
export type VisitObject = (object: PackObject) => void;

/** The signature and version of a pack's first 12 bytes, checked; its object count. */
function readPackHeader(pack: Buffer): number {
  if (pack.length < 12 || pack.toString("latin1", 0, 4) !== "PACK") throw new Error("corrupt pack: it does not start with 'PACK'");
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`corrupt pack: version ${version} is not one git writes`);
  return pack.readUInt32BE(8);
}

/** Reads the entry at `start` of `bytes`: its header and extent, inflated to check its size; a whole object is named and shown to `visit`. */
function readEntry(bytes: Buffer, start: number, visit: VisitObject | undefined): { entry: PackEntry; next: number } {
  const header = readEntryHeader(bytes, start);
  const inflated = inflateAt(bytes, header.data, header.size);
  if (inflated.data.length !== header.size)
    throw new Error(`corrupt pack: the entry at byte ${start} inflates to ${inflated.data.length} bytes, its header says ${header.size}`);
  const next = header.data + inflated.used;
  // A whole object is named now, while it is inflated; deltas wait for their bases.
  const oid = header.base === undefined ? gitObjectId(OBJECT_TYPES[header.type]!, inflated.data) : undefined;
  if (oid) visit?.({ oid, type: OBJECT_TYPES[header.type]!, data: inflated.data });
  return { entry: { ...header, start, crc: zlib.crc32(bytes.subarray(start, next)), oid }, next };
}

/**
 * Reads every entry's header and extent, checking the pack's signature, version and checksum; whole objects are shown
 * to `visit`. `from` are the entries already read from the pack's start as it arrived (see PackArriving), the rest
 * following them.
 */
async function readEntries(
  pack: Buffer,
  pause: Pause,
  visit?: VisitObject,
  from: { entries: PackEntry[]; at: number } = { entries: [], at: 12 },
): Promise<PackEntry[]> {
  // A header and a checksum at least, as before any other check.
  if (pack.length < 32) throw new Error("corrupt pack: it does not start with 'PACK'");
  const count = readPackHeader(pack);
  const body = pack.subarray(0, pack.length - 20);
  if (
    !createHash("sha1")
      .update(body)
      .digest()
      .equals(pack.subarray(pack.length - 20))
  )
    throw new Error("corrupt pack: its checksum does not match its bytes");
  const entries = from.entries;
  let at = from.at;
  for (let i = entries.length; i < count; i++) {
    if (at >= body.length) throw new Error(`corrupt pack: it announces ${count} objects and holds ${i}`);
    const read = readEntry(body, at, visit);
    entries.push(read.entry);
    at = read.next;
    await pause();
  }
  if (at !== body.length) throw new Error("corrupt pack: bytes follow its last object");
  return entries;
}

// Bytes an entry's header may take at most (type and size, then a delta's base as an offset or an object id), with room.
const HEADER_ROOM = 64;

/**
 * A pack read as it arrives: each entry whose bytes have all come is inflated and named at once, while the server is
 * still sending the rest, instead of every entry after the last byte. Nothing read is trusted before `index` has checked
 * the whole pack (its checksum, its object count, nothing after its last object), which reads what is left the usual way.
 * An entry whose bytes have not all come is tried again once twice as many have; one that does not read for another
 * reason (damage) stops the early reading, and `index` then reports it.
 */
export class PackArriving {
  private bytes = Buffer.alloc(64 * 1024);
  private length = 0;
  private readonly entries: PackEntry[] = [];
  private at = 12;
  private count: number | null = null;
  // Bytes to wait for before trying again an entry whose stream had not all come: twice what it had, so a large
  // entry is inflated a few times at most.
  private waitFor = 0;
  private stopped = false;

  constructor(private readonly visit?: VisitObject) {}

  /** More bytes of the pack, in order. */
  add(part: Buffer): void {
    if (this.length + part.length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + part.length));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    part.copy(this.bytes, this.length);
    this.length += part.length;
    this.readWhatCame();
  }

  /** How many bytes came. */
  get received(): number {
    return this.length;
  }

  /** The whole pack: every byte that came. */
  pack(): Buffer {
    // Grown by doubling, the buffer may be nearly twice the pack: it is cut to size once, as the pack is kept a while.
    if (this.bytes.length > this.length * 1.25) this.bytes = Buffer.from(this.bytes.subarray(0, this.length));
    return this.bytes.subarray(0, this.length);
  }

  /** Names every object (see resolvePack), the entries read as the pack arrived first, and writes its index. */
  async index(pause: Pause = sliceWork()): Promise<Buffer> {
    const pack = this.pack();
    const entries = await readEntries(pack, pause, this.visit, { entries: this.entries, at: this.at });
    return indexOfEntries(await resolveEntries(pack, entries, pause, this.visit), pack);
  }

  private readWhatCame(): void {
    if (this.stopped || this.length < this.waitFor) return;
    if (this.count === null) {
      if (this.length < 12) return;
      try {
        this.count = readPackHeader(this.bytes);
      } catch {
        this.stopped = true;
        return;
      }
    }
    // The checksum's 20 bytes follow the last entry: an entry is never read from them.
    while (this.entries.length < this.count && this.length - this.at >= HEADER_ROOM + 20) {
      try {
        const read = readEntry(this.bytes.subarray(0, this.length), this.at, this.visit);
        this.entries.push(read.entry);
        this.at = read.next;
      } catch (error) {
        if (error instanceof CutShort) this.waitFor = this.at + 2 * (this.length - this.at);
        else this.stopped = true;
        return;
      }
    }
  }
}

/**
 * Names every object of a pack, resolving deltas against their bases (within the pack: a clone's pack is never
 * thin), and shows each object to `visit`: whole objects in pack order, then deltas. Returns the entries, each named.
 */
export async function resolvePack(pack: Buffer, pause: Pause = sliceWork(), visit?: VisitObject, external?: ExternalBase): Promise<PackEntry[]> {
  return resolveEntries(pack, await readEntries(pack, pause, visit), pause, visit, external);
}

/** Names the deltas among a pack's read entries (see resolvePack), showing each to `visit`. */
async function resolveEntries(pack: Buffer, entries: PackEntry[], pause: Pause, visit?: VisitObject, external?: ExternalBase): Promise<PackEntry[]> {
  const byStart = new Map(entries.map((entry) => [entry.start, entry]));
  const byOid = new Map<string, PackEntry>();
  // Inflated objects that an ofs-delta uses as its base, kept while there is room.
  const bases = new Set(entries.flatMap((entry) => (typeof entry.base === "number" ? [entry.base] : [])));
  const resolved = new BaseCache<{ type: string; data: Buffer }>();
  const resolve = (entry: PackEntry): { type: string; data: Buffer } => {
    const known = resolved.get(entry.start);
    if (known) return known;
    const inflated = inflateAt(pack, entry.data, entry.size).data;
    let object: { type: string; data: Buffer };
    if (entry.base === undefined) {
      object = { type: OBJECT_TYPES[entry.type]!, data: inflated };
    } else {
      const base = typeof entry.base === "number" ? byStart.get(entry.base) : byOid.get(entry.base);
      const outside = !base && typeof entry.base === "string" ? external?.(entry.base) : undefined;
      if (!base && !outside) throw new Error(`corrupt pack: the delta at byte ${entry.start} names a base the pack does not hold`);
      const from = base ? resolve(base) : outside!;
      object = { type: from.type, data: applyDelta(from.data, inflated) };
    }
    if (bases.has(entry.start)) resolved.set(entry.start, object);
    return object;
  };
  for (const entry of entries) if (entry.oid) byOid.set(entry.oid, entry);
  for (const entry of entries) {
    if (entry.oid) continue;
    const object = resolve(entry);
    entry.oid = gitObjectId(object.type, object.data);
    byOid.set(entry.oid, entry);
    visit?.({ oid: entry.oid, ...object });
    await pause();
  }
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
export function packName(pack: Buffer): string {
  return `pack-${pack.subarray(pack.length - 20).toString("hex")}`;
}

/**
 * Makes a thin pack whole, as `git index-pack --fix-thin` does, and indexes it: the objects its deltas are based on
 * that it does not hold are found by `external` and appended whole, and the object count and checksum rewritten. A
 * pack kept on disk must hold its deltas' bases (git reads no other pack for them). A pack that missed nothing (a
 * whole tree, when the server did not know the commit asked with) is resolved once, not again for its index; throws
 * when a base is found nowhere.
 */
export async function indexThinPack(thin: Buffer, external: ExternalBase, pause: Pause = sliceWork()): Promise<{ pack: Buffer; index: Buffer }> {
  const missing = new Map<string, { type: string; data: Buffer }>();
  const entries = await resolvePack(thin, pause, undefined, (oid) => {
    const object = missing.get(oid) ?? external(oid);
    if (object) missing.set(oid, object);
    return object;
  });
  if (missing.size === 0) return { pack: thin, index: indexOfEntries(entries, thin) };
  const body = Buffer.concat([
    thin.subarray(0, thin.length - 20),
    ...[...missing.values()].flatMap(({ type, data }) => [wholeEntryHeader(OBJECT_TYPES.indexOf(type as never), data.length), zlib.deflateSync(data)]),
  ]);
  body.writeUInt32BE(thin.readUInt32BE(8) + missing.size, 8);
  const pack = Buffer.concat([body, createHash("sha1").update(body).digest()]);
  return { pack, index: await indexPack(pack, pause) };
}

/**
 * Names every object of a pack (see resolvePack) and writes its version-2 index (`.idx`), as `git index-pack` does:
 * the object ids sorted, with each entry's CRC-32 and offset, then the pack's checksum and the index's own.
 * Inflating with Node's zlib, this takes a fraction of the time isomorphic-git's JavaScript inflate takes over the
 * same pack. `visit` sees every object as it is named (see resolvePack).
 */
export async function indexPack(pack: Buffer, pause: Pause = sliceWork(), visit?: VisitObject): Promise<Buffer> {
  return indexOfEntries(await resolvePack(pack, pause, visit), pack);
}

/** The index of a pack whose entries resolvePack already named, without resolving it again. */
export function indexOfEntries(entries: PackEntry[], pack: Buffer): Buffer {
  return writeIndex(entries, pack.subarray(pack.length - 20));
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
  createHash("sha1")
    .update(index.subarray(0, largeAt + 20))
    .digest()
    .copy(index, largeAt + 20);
  return index;
}
