import fs from "node:fs";
import path from "node:path";
import { applyDelta } from "./apply-delta.js";
import { BaseCache, inflateAt, OBJECT_TYPES, readEntryHeader } from "./pack-entry.js";
import { PackFile } from "./pack-file.js";

/** An object read back from a pack: its kind and its bytes (a delta already applied). */
export interface PackedObject {
  type: "commit" | "tree" | "blob" | "tag";
  data: Buffer;
}

/**
 * A pack's version-2 `.idx` (what git and this client write), searched where it lies: the fan-out table narrows an id
 * to a range of the sorted names, searched by halves, so that a mirror's index of a million objects is never turned
 * into a map of them. Where each entry ends (where the next begins) comes from its offsets, sorted once.
 */
class PackIndex {
  private readonly count: number;
  private readonly names = 8 + 256 * 4;
  private sorted: Float64Array | undefined;

  constructor(
    private readonly idx: Buffer,
    file: string,
  ) {
    if (idx.length < this.names || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) throw new Error(`${file}: not a version 2 pack index`);
    this.count = idx.readUInt32BE(8 + 255 * 4);
  }

  /** Where the object `oid` starts in the pack, or undefined when the pack does not hold it. */
  startOf(oid: string): number | undefined {
    const key = Buffer.from(oid, "hex");
    if (key.length !== 20) return undefined;
    let low = key[0] === 0 ? 0 : this.idx.readUInt32BE(8 + (key[0]! - 1) * 4);
    let high = this.idx.readUInt32BE(8 + key[0]! * 4);
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = this.names + middle * 20;
      const order = this.idx.compare(key, 0, 20, at, at + 20);
      if (order === 0) return this.offset(middle);
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return undefined;
  }

  /** Where the entry starting at `start` ends in a pack of `length` bytes: where the next begins, or where the checksum does; undefined when none starts there. */
  endOf(start: number, length: number): number | undefined {
    this.sorted ??= Float64Array.from({ length: this.count }, (_, i) => this.offset(i)).sort();
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.sorted[middle]! < start) low = middle + 1;
      else high = middle;
    }
    if (this.sorted[low] !== start) return undefined;
    return low + 1 < this.sorted.length ? this.sorted[low + 1] : length - 20;
  }

  /** The start of the `i`th object, by name: offsets past 2 GiB sit in a table of 8-byte values, pointed at by the low 31 bits. */
  private offset(i: number): number {
    const offsets = this.names + this.count * 24;
    const small = this.idx.readUInt32BE(offsets + i * 4);
    return small & 0x80000000 ? Number(this.idx.readBigUInt64BE(offsets + this.count * 4 + (small & 0x7fffffff) * 8)) : small;
  }
}

/** One pack on disk: its file and its index. */
interface IndexedPack {
  file: PackFile;
  index: PackIndex;
}

/** The packs of a repository's `.git` that have both their files, by name (`pack-<checksum>`). */
function packsOf(gitdir: string): { folder: string; packs: string[] } {
  const folder = path.join(gitdir, "objects", "pack");
  const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const packs = names.filter((name) => name.endsWith(".idx")).map((name) => name.slice(0, -".idx".length));
  return { folder, packs: packs.filter((pack) => names.includes(`${pack}.pack`)) };
}

/**
 * Reads objects straight from the packs of a repository's `.git`, inflating them with Node's zlib: each entry read
 * from its file as it is asked for, so that no pack is held whole in memory, whatever its size. Objects not in a pack
 * (loose ones) are not found here: `read` answers null (see GitObjects). Files stay open until `close`.
 */
export class PackObjects {
  private readonly packs: IndexedPack[] = [];
  private readonly bases = new BaseCache<PackedObject>();

  /** The packs of a repository's `.git`, or the packs a folder holds under the names given (`pack-<checksum>`, each with its `.idx`; throws when one is missing). */
  constructor(from: string | { folder: string; packs: string[] }) {
    const { folder, packs } = typeof from === "string" ? packsOf(from) : from;
    for (const pack of packs) {
      const index = new PackIndex(fs.readFileSync(path.join(folder, `${pack}.idx`)), `${pack}.idx`);
      this.packs.push({ file: PackFile.open(path.join(folder, `${pack}.pack`)), index });
    }
  }

  /** The object `oid`, or null when no pack holds it. */
  read(oid: string): PackedObject | null {
    for (const pack of this.packs) {
      const start = pack.index.startOf(oid);
      if (start !== undefined) return this.readAt(pack, start);
    }
    return null;
  }

  /** Closes the packs' files; reading again opens them again. */
  close(): void {
    for (const pack of this.packs) pack.file.close();
  }

  private readAt(pack: IndexedPack, start: number): PackedObject {
    const key = `${this.packs.indexOf(pack)}:${start}`;
    const known = this.bases.get(key);
    if (known) return known;
    const end = pack.index.endOf(start, pack.file.length);
    if (end === undefined) throw new Error(`corrupt pack: an ofs-delta points at byte ${start} of ${pack.file.file}, where no entry starts`);
    const bytes = pack.file.read(start, end);
    const header = readEntryHeader(bytes, start, start);
    let base: PackedObject | null = null;
    if (typeof header.base === "number") {
      base = this.readAt(pack, header.base);
    } else if (header.base !== undefined) {
      base = this.read(header.base);
      if (!base) throw new Error(`corrupt pack: a delta's base ${header.base} is in no pack`);
    }
    const inflated = inflateAt(bytes, header.data, header.size, start).data;
    const object: PackedObject = base ? { type: base.type, data: applyDelta(base.data, inflated) } : { type: OBJECT_TYPES[header.type]!, data: inflated };
    this.bases.set(key, object);
    return object;
  }
}
