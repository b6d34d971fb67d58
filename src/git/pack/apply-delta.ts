/**
 * Applies a git delta (the body of an `ofs-delta` or `ref-delta` pack entry) to its base: a header of two
 * sizes (base, result), then instructions that either copy a range of the base or insert bytes carried in
 * the delta. Throws on a delta that does not fit its base, so a corrupt pack is never written as files.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer {
  let at = 0;
  // Every byte an instruction announces must be there: a delta cut short is refused, never read past its end.
  const next = (): number => {
    if (at >= delta.length) throw new Error("corrupt pack: a delta ends in the middle of an instruction");
    return delta[at++]!;
  };
  const size = (): number => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = next();
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const baseSize = size();
  if (baseSize !== base.length) throw new Error(`corrupt pack: a delta expects a base of ${baseSize} bytes, its base has ${base.length}`);
  const result = Buffer.allocUnsafe(size());
  let written = 0;
  while (at < delta.length) {
    const op = next();
    if (op & 0x80) {
      // Copy: bits 0–3 say which offset bytes follow, bits 4–6 which size bytes; a size of 0 means 64 KiB.
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += next() * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (1 << (4 + bit))) length += next() << (8 * bit);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || written + length > result.length) throw new Error("corrupt pack: a delta copies past the end of its base or result");
      result.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (op !== 0) {
      // Insert: the next `op` bytes of the delta.
      if (at + op > delta.length || written + op > result.length) throw new Error("corrupt pack: a delta inserts past its end");
      result.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new Error("corrupt pack: a delta holds the reserved instruction 0");
    }
  }
  if (written !== result.length) throw new Error(`corrupt pack: a delta made ${written} bytes, its header says ${result.length}`);
  return result;
}
