import { sliceWork, type Pause } from "../../lib/slice-work.js";
import { indexOfEntries, readEntries, readEntry, readPackHeader, resolveEntries, type PackEntry, type VisitObject } from "./index-pack.js";
import { CutShort } from "./pack-entry.js";
import { GatheredPack, type SpillTo } from "./gather-pack.js";
import type { PackBytes } from "./pack-file.js";

// Bytes an entry's header may take at most (type and size, then a delta's base as an offset or an object id), with room.
const HEADER_ROOM = 64;

/**
 * A pack read as it arrives: each entry whose bytes have all come is inflated and named at once, while the server is
 * still sending the rest, instead of every entry after the last byte. Nothing read is trusted before `index` has checked
 * the whole pack (its checksum, its object count, nothing after its last object), which reads what is left the usual way.
 * An entry whose bytes have not all come is tried again once twice as many have; one that does not read for another
 * reason (damage) stops the early reading, and `index` then reports it. With `spill`, a pack larger than its bound goes
 * to a file (see GatheredPack): memory then holds only the bytes not read yet.
 */
export class PackArriving {
  private readonly gathered: GatheredPack;
  private readonly entries: PackEntry[] = [];
  private at = 12;
  private count: number | null = null;
  // Bytes to wait for before trying again an entry whose stream had not all come: twice what it had, so a large
  // entry is inflated a few times at most.
  private waitFor = 0;
  private stopped = false;

  constructor(
    private readonly visit?: VisitObject,
    spill?: SpillTo,
  ) {
    this.gathered = new GatheredPack(spill);
    // Read from its start as it arrives: its bytes stay in memory until they are read.
    this.gathered.keepFrom(0);
  }

  /** More bytes of the pack, in order. */
  add(part: Buffer): void {
    this.gathered.add(part);
    this.readWhatCame();
  }

  /** How many bytes came. */
  get received(): number {
    return this.gathered.received;
  }

  /** Bytes of the pack held in memory now. */
  get held(): number {
    return this.gathered.held;
  }

  /** The whole pack: every byte that came, in memory or in its file. */
  pack(): PackBytes {
    return this.gathered.pack();
  }

  /** Closes the pack's file, if it went to one, when the fetch failed before `pack` was asked for. */
  close(): void {
    this.gathered.close();
  }

  /** Names every object (see resolvePack), the entries read as the pack arrived first, and writes its index. */
  async index(pause: Pause = sliceWork()): Promise<Buffer> {
    const pack = this.pack();
    const entries = await readEntries(pack, pause, this.visit, { entries: this.entries, at: this.at });
    return indexOfEntries(await resolveEntries(pack, entries, { pause, visit: this.visit }), pack);
  }

  private readWhatCame(): void {
    const length = this.gathered.received;
    if (this.stopped) return;
    // An entry larger than memory may hold is left, with those after it, to `index`, which reads them from the file.
    if (this.gathered.overBound(this.at)) return this.stop();
    if (length < this.waitFor) return;
    if (this.count === null) {
      if (length < 12) return;
      try {
        this.count = readPackHeader(this.gathered.tail(0).bytes);
      } catch {
        this.stop();
        return;
      }
    }
    // The checksum's 20 bytes follow the last entry: an entry is never read from them.
    while (this.entries.length < this.count && length - this.at >= HEADER_ROOM + 20) {
      const { bytes, origin } = this.gathered.tail(this.at);
      try {
        const entry = readEntry(bytes, origin, this.at, this.visit);
        this.entries.push(entry);
        this.at = entry.end;
      } catch (error) {
        if (!(error instanceof CutShort)) return this.stop();
        this.waitFor = this.at + 2 * (length - this.at);
        break;
      }
    }
    this.gathered.keepFrom(this.at);
  }

  /** Stops the early reading: the bytes held for it are let go of once the pack is in its file. */
  private stop(): void {
    this.stopped = true;
    this.gathered.keepFrom(Infinity);
  }
}
