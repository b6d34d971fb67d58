import zlib from "node:zlib";

/** The kinds of whole objects, by their pack type number. */
export const OBJECT_TYPES = [undefined, "commit", "tree", "blob", "tag"] as const;
export const OFS_DELTA = 6;
export const REF_DELTA = 7;

/** The header of one pack entry. */
export interface EntryHeader {
  /** 1–4 a whole object (see OBJECT_TYPES), 6 a delta on an earlier entry, 7 a delta on an object named by id. */
  type: number;
  /** The inflated size. */
  size: number;
  /** A delta's base: the start of an earlier entry (type 6) or an object id (type 7). */
  base?: number | string;
  /** Where the entry's deflated data begins. */
  data: number;
}

/**
 * Reads the header of the pack entry at `start`: the type in bits 4–6 of the first byte and the size in
 * little-endian groups of 7 bits, then for an ofs-delta how far back its base starts (git's offset encoding,
 * where each continuation adds one) and for a ref-delta its base's 20-byte id. `bytes` hold the pack from its byte
 * `origin` on (all of it by default); the positions returned are the pack's.
 */
export function readEntryHeader(bytes: Buffer, start: number, origin = 0): EntryHeader {
  let at = start - origin;
  let byte = bytes[at++]!;
  const type = (byte >> 4) & 7;
  let size = byte & 0x0f;
  for (let shift = 4; byte & 0x80; shift += 7) {
    byte = bytes[at++]!;
    size += (byte & 0x7f) * 2 ** shift;
  }
  if (type === OFS_DELTA) {
    byte = bytes[at++]!;
    let back = byte & 0x7f;
    while (byte & 0x80) {
      byte = bytes[at++]!;
      back = (back + 1) * 128 + (byte & 0x7f);
    }
    if (back === 0 || back > start) throw new Error(`corrupt pack: the delta at byte ${start} points at itself or before the pack's start`);
    return { type, size, base: start - back, data: origin + at };
  }
  if (type === REF_DELTA) return { type, size, base: bytes.toString("hex", at, at + 20), data: origin + at + 20 };
  if (!OBJECT_TYPES[type]) throw new Error(`corrupt pack: an entry of unknown type ${type} at byte ${start}`);
  return { type, size, data: origin + at };
}

/**
 * Most bytes one object of a pack may inflate to. GitHub refuses files over 100 MB; a pack entry declaring gigabytes
 * (a few kilobytes of deflated zeros can) would otherwise be inflated whole.
 */
export const MAX_OBJECT_BYTES = 512 * 1024 * 1024;

/** The error of a zlib stream that ends before its end: a damaged pack, or one still arriving. */
export class CutShort extends Error {}

/**
 * The inflated bytes of the zlib stream at `at` and how many bytes of `bytes` it took; damage is reported as a corrupt
 * pack. `size`, the entry's declared size, bounds what is inflated: a stream longer than its entry says is refused
 * before it is inflated whole, and so is an entry declaring more than MAX_OBJECT_BYTES. `bytes` hold the pack from its
 * byte `origin` on (all of it by default), `at` a position in the pack.
 */
export function inflateAt(bytes: Buffer, at: number, size = MAX_OBJECT_BYTES, origin = 0): { data: Buffer; used: number } {
  if (size > MAX_OBJECT_BYTES)
    throw new Error(`corrupt pack: the entry at byte ${at} declares ${size} bytes, more than the ${MAX_OBJECT_BYTES / 2 ** 20} MB one object may have`);
  try {
    // Output of the declared size, in one piece up to 16 MB: zlib's default 16 KB pieces would leave every smaller
    // object a view on a 16 KB buffer of its own, which a clone holding thousands of them would pay for many times over.
    const options = { info: true, maxOutputLength: Math.max(1, size), chunkSize: Math.min(Math.max(64, size + 1), 16 * 2 ** 20) };
    const { buffer, engine } = zlib.inflateSync(bytes.subarray(at - origin), options) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { data: buffer, used: engine.bytesWritten };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_BUFFER_TOO_LARGE")
      throw new Error(`corrupt pack: the data at byte ${at} inflates to more than the ${size} bytes its entry declares`, { cause: error });
    const message = `corrupt pack: the data at byte ${at} does not inflate (${(error as Error).message})`;
    throw code === "Z_BUF_ERROR" ? new CutShort(message) : new Error(message, { cause: error });
  }
}

// Inflated objects kept as delta bases; a shallow clone's deltas mostly point at nearby objects.
const BASE_CACHE_BYTES = 32 * 1024 * 1024;

/** Objects kept as possible delta bases up to a number of bytes, so a pack's deltas do not inflate their bases again; a full cache starts over. */
export class BaseCache<T extends { data: Buffer }> {
  private readonly kept = new Map<string | number, T>();
  private bytes = 0;

  constructor(private readonly maxBytes = BASE_CACHE_BYTES) {}

  get(key: string | number): T | undefined {
    return this.kept.get(key);
  }

  set(key: string | number, object: T): void {
    if (object.data.length > this.maxBytes / 4) return;
    if (this.bytes + object.data.length > this.maxBytes) {
      this.kept.clear();
      this.bytes = 0;
    }
    this.kept.set(key, object);
    this.bytes += object.data.length;
  }
}
