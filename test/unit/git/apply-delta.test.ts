import { describe, expect, it } from "vitest";
import { applyDelta } from "../../../src/git/pack/apply-delta.js";

/** A delta's size header: 7 bits a byte, low bits first. */
function size(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    bytes.push(byte);
  } while (value > 0);
  return bytes;
}

/** A copy instruction with every offset and size byte present. */
function copy(offset: number, length: number): number[] {
  return [
    0x80 | 0x7f,
    offset & 0xff,
    (offset >> 8) & 0xff,
    (offset >> 16) & 0xff,
    (offset >> 24) & 0xff,
    length & 0xff,
    (length >> 8) & 0xff,
    (length >> 16) & 0xff,
  ];
}

function insert(text: string): number[] {
  return [text.length, ...Buffer.from(text)];
}

const base = Buffer.from("def greet(name):\n    return 'hello ' + name\n");

describe("applyDelta", () => {
  it.each([
    [
      "copies and inserts",
      [...size(base.length), ...size(49), ...copy(0, 17), ...insert("    # say it\n"), ...copy(17, 19)],
      "def greet(name):\n    # say it\n    return 'hello '",
    ],
    ["only inserts", [...size(base.length), ...size(3), ...insert("abc")], "abc"],
    [
      "copies the whole base with a short copy instruction (offset byte 0, size byte 0)",
      [...size(base.length), ...size(base.length), 0x80 | 0x10, base.length],
      base.toString(),
    ],
  ])("%s", (_label, delta, expected) => {
    expect(applyDelta(base, Buffer.from(delta as number[])).toString()).toBe(expected);
  });

  it("reads a copy of size 0 as 64 KiB", () => {
    const big = Buffer.alloc(0x10000, "x");
    const result = applyDelta(big, Buffer.from([...size(big.length), ...size(big.length), 0x80]));
    expect(result.equals(big)).toBe(true);
  });

  it.each([
    ["a base of another size", [...size(base.length + 1), ...size(3), ...insert("abc")], "expects a base of"],
    ["a copy past the base", [...size(base.length), ...size(10), ...copy(base.length - 2, 10)], "copies past the end"],
    ["a result shorter than its header", [...size(base.length), ...size(10), ...insert("abc")], "made 3 bytes, its header says 10"],
    ["an insert past the delta's end", [...size(base.length), ...size(5), 5, 0x61], "inserts past its end"],
    ["the reserved instruction 0", [...size(base.length), ...size(1), 0], "reserved instruction 0"],
  ])("refuses %s", (_label, delta, message) => {
    expect(() => applyDelta(base, Buffer.from(delta as number[]))).toThrow(message as string);
  });
});
