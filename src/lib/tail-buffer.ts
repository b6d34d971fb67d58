/**
 * Keeps the last `keep` bytes of a stream of chunks, in memory bounded by twice that however much passes through:
 * the output of a command that floods, a log of any size.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Every byte pushed, kept or not. */
  total = 0;

  constructor(private readonly keep: number) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.held += chunk.length;
    // Compacted now and then rather than per chunk: a flood costs linear time.
    if (this.held > this.keep * 2) {
      const tail = Buffer.concat(this.chunks).subarray(-this.keep);
      this.chunks = [tail];
      this.held = tail.length;
    }
  }

  /**
   * The kept tail as UTF-8. When bytes were dropped before it (`cut`), it starts at the next line, if one starts in
   * it: the cut may fall inside a line or a multi-byte character.
   */
  text(cut = this.total > this.keep): string {
    const text = Buffer.concat(this.chunks).subarray(-this.keep).toString("utf8");
    return cut ? fromLineStart(text) : text;
  }
}

/** The text from its second line on, when it has one: the end of a text cut at an arbitrary place starts at a line. */
export function fromLineStart(text: string): string {
  const newline = text.indexOf("\n");
  return newline >= 0 && newline < text.length - 1 ? text.slice(newline + 1) : text;
}

/** The last `max` characters of a text, from a line's start when one is in reach, marked "…" when something was cut. */
export function endOfText(text: string, max: number): string {
  return text.length <= max ? text : `…\n${fromLineStart(text.slice(-max))}`;
}
