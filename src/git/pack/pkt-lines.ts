/** One pkt-line of git's wire protocol: its payload, or "flush" for the `0000` that ends a section. */
export type PktLine = Buffer | "flush";

/** The pkt-line of `text`: four hex digits of length (their own four included), then the text. */
export function pktLine(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, "0"), "latin1"), payload]);
}

export const FLUSH = Buffer.from("0000", "latin1");

/**
 * Reads pkt-lines out of a byte stream that arrives in parts of any size. `next` answers undefined once the
 * stream has ended on a line boundary, and throws when it ends inside a line or a length is not hex.
 */
export class PktLineReader {
  private pending = Buffer.alloc(0);
  private readonly parts: AsyncIterator<Uint8Array>;

  constructor(
    stream: AsyncIterable<Uint8Array>,
    private readonly what: string,
  ) {
    this.parts = stream[Symbol.asyncIterator]();
  }

  async next(): Promise<PktLine | undefined> {
    if (!(await this.fill(4))) return undefined;
    const header = this.pending.toString("latin1", 0, 4);
    const length = /^[0-9a-f]{4}$/i.test(header) ? parseInt(header, 16) : NaN;
    if (Number.isNaN(length) || (length > 0 && length < 4)) throw new Error(`${this.what}: the git server sent '${header}' where a pkt-line length belongs`);
    if (length === 0) {
      this.pending = this.pending.subarray(4);
      return "flush";
    }
    if (!(await this.fill(length))) throw new Error(`${this.what}: the git server's answer ended in the middle of a line`);
    const line = this.pending.subarray(4, length);
    this.pending = this.pending.subarray(length);
    return line;
  }

  /** Reads parts until `bytes` are pending; false when the stream ends first with nothing pending. */
  private async fill(bytes: number): Promise<boolean> {
    while (this.pending.length < bytes) {
      const part = await this.parts.next();
      if (part.done) {
        if (this.pending.length === 0) return false;
        throw new Error(`${this.what}: the git server's answer ended in the middle of a line`);
      }
      this.pending = this.pending.length === 0 ? Buffer.from(part.value) : Buffer.concat([this.pending, part.value]);
    }
    return true;
  }
}
