import fs from "node:fs";
import path from "node:path";
import { applyDelta } from "./apply-delta.js";
import { BaseCache, inflateAt, OBJECT_TYPES, readEntryHeader } from "./pack-entry.js";

/** An object read back from a pack: its kind and its bytes (a delta already applied). */
export interface PackedObject {
  type: "commit" | "tree" | "blob" | "tag";
  data: Buffer;
}

/** Where each object of one pack starts, from its version-2 `.idx` (what isomorphic-git and git write). */
function readIndex(idx: Buffer, file: string): Map<string, number> {
  if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) throw new Error(`${file}: not a version 2 pack index`);
  const count = idx.readUInt32BE(8 + 255 * 4);
  const names = 8 + 256 * 4;
  const offsets = names + count * 20 + count * 4;
  const large = offsets + count * 4;
  const starts = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const oid = idx.toString("hex", names + i * 20, names + i * 20 + 20);
    const small = idx.readUInt32BE(offsets + i * 4);
    // Offsets past 2 GiB sit in a table of 8-byte values, pointed at by the low 31 bits.
    starts.set(oid, small & 0x80000000 ? Number(idx.readBigUInt64BE(large + (small & 0x7fffffff) * 8)) : small);
  }
  return starts;
}

/** The packs of a repository's `.git` that have both their files, by name (`pack-<checksum>`). */
function packsOf(gitdir: string): { folder: string; packs: string[] } {
  const folder = path.join(gitdir, "objects", "pack");
  const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const packs = names.filter((name) => name.endsWith(".idx")).map((name) => name.slice(0, -".idx".length));
  return { folder, packs: packs.filter((pack) => names.includes(`${pack}.pack`)) };
}

/**
 * Reads objects straight from the packs of a repository's `.git`, inflating them with Node's zlib. A shallow
 * clone holds every file of its commit in one pack; isomorphic-git reads each packed object with a zlib written
 * in JavaScript, which made writing a large work tree take longer than fetching it. Objects not in a pack
 * (loose ones) are not found here: `read` answers null and the caller asks isomorphic-git.
 */
export class PackObjects {
  private readonly packs: Array<{ bytes: Buffer; starts: Map<string, number> }> = [];
  private readonly bases = new BaseCache<PackedObject>();

  /** The packs of a repository's `.git`, or the packs a folder holds under the names given (`pack-<checksum>`, each with its `.idx`; throws when one is missing). */
  constructor(from: string | { folder: string; packs: string[] }) {
    const { folder, packs } = typeof from === "string" ? packsOf(from) : from;
    for (const pack of packs) {
      this.packs.push({
        bytes: fs.readFileSync(path.join(folder, `${pack}.pack`)),
        starts: readIndex(fs.readFileSync(path.join(folder, `${pack}.idx`)), `${pack}.idx`),
      });
    }
  }

  /** The object `oid`, or null when no pack holds it. */
  read(oid: string): PackedObject | null {
    for (const pack of this.packs) {
      const start = pack.starts.get(oid);
      if (start !== undefined) return this.readAt(pack, start);
    }
    return null;
  }

  private readAt(pack: { bytes: Buffer; starts: Map<string, number> }, start: number): PackedObject {
    const key = `${this.packs.indexOf(pack)}:${start}`;
    const known = this.bases.get(key);
    if (known) return known;
    const header = readEntryHeader(pack.bytes, start);
    let base: PackedObject | null = null;
    if (typeof header.base === "number") {
      base = this.readAt(pack, header.base);
    } else if (header.base !== undefined) {
      base = this.read(header.base);
      if (!base) throw new Error(`corrupt pack: a delta's base ${header.base} is in no pack`);
    }
    const inflated = inflateAt(pack.bytes, header.data, header.size).data;
    const object: PackedObject = base ? { type: base.type, data: applyDelta(base.data, inflated) } : { type: OBJECT_TYPES[header.type]!, data: inflated };
    this.bases.set(key, object);
    return object;
  }
}
