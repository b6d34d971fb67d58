import fs from "node:fs";
import { PackFile, type PackBytes } from "./pack-file.js";

/** Where the bytes of a pack go as they come: into memory up to a bound, then (see spill) into a file. */
export interface SpillTo {
  /** The file a pack larger than `memoryBytes` is written to; the caller removes it (it lies in the checkout). */
  file: string;
  memoryBytes: number;
}

/**
 * A pack's bytes gathered as they arrive: in memory while they fit `spill.memoryBytes` (all of them without `spill`),
 * past it in `spill.file`, what came before written there first. Once in the file, memory holds only the bytes from
 * `keepFrom` on, for whoever reads the pack as it arrives (see PackArriving), and none when no one does.
 */
export class GatheredPack {
  // Memory is taken in steps of this much at least: a buffer of a pack's first parts, then of its bytes not read yet.
  private readonly step: number;
  private bytes: Buffer;
  /** Where `bytes` starts in the pack: 0 while all is in memory. */
  private origin = 0;
  private length = 0;
  private fd: number | null = null;
  private keep = Infinity;
  private inFile: PackFile | undefined;

  constructor(private readonly spill?: SpillTo) {
    this.step = Math.min(64 * 1024, spill?.memoryBytes ?? Infinity);
    this.bytes = Buffer.alloc(this.step);
  }

  /** More bytes of the pack, in order. */
  add(part: Buffer): void {
    if (this.fd === null && this.spill && this.length + part.length > this.spill.memoryBytes) {
      this.fd = fs.openSync(this.spill.file, "wx", 0o600);
      writeAll(this.fd, this.bytes.subarray(0, this.length));
    }
    if (this.fd !== null) writeAll(this.fd, part);
    this.trim(part.length);
    const held = this.length - this.origin;
    if (held + part.length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, held + part.length));
      this.bytes.copy(grown, 0, 0, held);
      this.bytes = grown;
    }
    part.copy(this.bytes, held);
    this.length += part.length;
  }

  /** How many bytes came. */
  get received(): number {
    return this.length;
  }

  /** Bytes held in memory now. */
  get held(): number {
    return this.bytes.length;
  }

  /** Whether the bytes from `start` to the last that came are more than memory may hold: only once they go to the file. */
  overBound(start: number): boolean {
    return this.fd !== null && this.length - start > this.spill!.memoryBytes;
  }

  /** The bytes from `start` to the last that came, and the pack position of the first; once in the file, only from `keepFrom` on. */
  tail(start: number): { bytes: Buffer; origin: number } {
    if (start < this.origin) throw new Error(`the pack's bytes before ${this.origin} are no longer in memory`);
    return { bytes: this.bytes.subarray(0, this.length - this.origin), origin: this.origin };
  }

  /** Once in the file, the bytes before `start` are let go of from memory (the reader as it arrives is past them). */
  keepFrom(start: number): void {
    this.keep = start;
    this.trim(0);
  }

  /** Once in the file, drops from memory the bytes before `keep`, making room for `extra` more. */
  private trim(extra: number): void {
    if (this.fd === null) return;
    const held = this.length - this.origin;
    const dropped = Math.min(this.keep, this.length) - this.origin;
    if (dropped <= 0) return;
    const needed = Math.max(this.step, held - dropped + extra);
    // The rest is moved to the buffer's start; a buffer grown for a large entry is given back once it is read.
    if (this.bytes.length > 4 * needed) {
      const smaller = Buffer.allocUnsafe(2 * needed);
      this.bytes.copy(smaller, 0, dropped, held);
      this.bytes = smaller;
    } else this.bytes.copy(this.bytes, 0, dropped, held);
    this.origin += dropped;
  }

  /** Every byte that came: in memory, cut to size (it is kept a while), or in its file. Asked for once all came. */
  pack(): PackBytes {
    if (this.fd !== null) {
      this.close();
      this.bytes = Buffer.alloc(0);
      this.origin = this.length;
      this.inFile = new PackFile(this.spill!.file, this.length);
    }
    if (this.inFile) return this.inFile;
    // Grown by doubling, the buffer may be nearly twice the pack: it is cut to size once.
    if (this.bytes.length > this.length * 1.25) this.bytes = Buffer.from(this.bytes.subarray(0, this.length));
    return this.bytes.subarray(0, this.length);
  }

  /** Closes the file the pack went to (a fetch that failed before `pack` was asked for leaves it open otherwise). */
  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Writes all of `bytes` at the file's end (a write may take fewer). */
function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}
