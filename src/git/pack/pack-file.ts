import fs from "node:fs";
import { sliceWork, type Pause } from "../../lib/slice-work.js";
import { gitHash } from "../git-object-id.js";

/** A pack's bytes: in memory, or in a file read a range at a time (a large pack, see PACK_MEMORY_BYTES). */
export type PackBytes = Buffer | PackFile;

/**
 * A pack in a file, read a range at a time, so that a large pack never sits whole in memory. Its descriptor stays
 * open until `close`; reading a closed one opens it again.
 */
export class PackFile {
  private fd: number | null = null;

  constructor(
    readonly file: string,
    readonly length: number,
  ) {}

  /** The pack in `file`, as long as the file is. */
  static open(file: string): PackFile {
    return new PackFile(file, fs.statSync(file).size);
  }

  /** Its bytes from `start` up to `end` (the file's end at most), in a buffer of their own. */
  read(start: number, end: number): Buffer {
    const stop = Math.min(end, this.length);
    const bytes = Buffer.allocUnsafe(Math.max(0, stop - start));
    this.fd ??= fs.openSync(this.file, "r");
    for (let done = 0; done < bytes.length;) {
      const read = fs.readSync(this.fd, bytes, done, bytes.length - done, start + done);
      if (read === 0) throw new Error(`${this.file} ended at byte ${start + done}, before the ${this.length} bytes it held when opened`);
      done += read;
    }
    return bytes;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** A pack's bytes from `start` up to `end`: a view of a pack in memory, a read of one in a file. */
export function packRange(pack: PackBytes, start: number, end: number): Buffer {
  return Buffer.isBuffer(pack) ? pack.subarray(start, end) : pack.read(start, end);
}

/** Bytes hashed between two pauses: a large pack would otherwise hold a server's event loop for a second. */
const HASH_SLICE = 4 * 2 ** 20;

/** The hash of a pack's bytes up to `end`, taken in slices between pauses. */
export async function hashPack(pack: PackBytes, end: number, pause: Pause = sliceWork()): Promise<Buffer> {
  const hash = gitHash();
  for (let at = 0; at < end; at += HASH_SLICE) {
    hash.update(packRange(pack, at, Math.min(at + HASH_SLICE, end)));
    await pause();
  }
  return hash.digest();
}

/** Whether a pack's (or an index's) last 20 bytes are the hash of what comes before them. */
export async function checksumHolds(pack: PackBytes, pause: Pause = sliceWork()): Promise<boolean> {
  const length = pack.length;
  if (length <= 20) return false;
  return (await hashPack(pack, length - 20, pause)).equals(packRange(pack, length - 20, length));
}

/**
 * Appends `entries` (whole pack entries) to a pack, as making a thin pack whole does: its object count raised by
 * `added`, and its checksum made again. A pack in memory becomes a new buffer; one in a file is changed in place.
 */
export async function appendToPack(pack: PackBytes, entries: Buffer[], added: number, pause: Pause = sliceWork()): Promise<PackBytes> {
  const length = pack.length;
  const count = packRange(pack, 8, 12).readUInt32BE(0) + added;
  if (Buffer.isBuffer(pack)) {
    const body = Buffer.concat([pack.subarray(0, length - 20), ...entries]);
    body.writeUInt32BE(count, 8);
    return Buffer.concat([body, gitHash().update(body).digest()]);
  }
  pack.close();
  const fd = fs.openSync(pack.file, "r+");
  try {
    fs.ftruncateSync(fd, length - 20);
    let end = length - 20;
    for (const entry of entries) {
      for (let done = 0; done < entry.length;) done += fs.writeSync(fd, entry, done, entry.length - done, end + done);
      end += entry.length;
    }
    const header = Buffer.alloc(4);
    header.writeUInt32BE(count);
    fs.writeSync(fd, header, 0, 4, 8);
    const whole = new PackFile(pack.file, end);
    const checksum = await hashPack(whole, end, pause);
    whole.close();
    fs.writeSync(fd, checksum, 0, 20, end);
    return new PackFile(pack.file, end + 20);
  } finally {
    fs.closeSync(fd);
  }
}
