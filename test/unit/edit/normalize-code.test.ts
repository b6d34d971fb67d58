import { describe, expect, it } from "vitest";
import { normalizeCode } from "../../../src/edit/index.js";

describe("normalizeCode: the text two candidate changes are compared by", () => {
  const same = async (path: string, a: string, b: string) => (await normalizeCode(path, a)) === (await normalizeCode(path, b));

  it.each([
    ["a.js", "return a+b; // sum\n", "return a + b;\n", true],
    ["a.js", "return a + b;\n", "return a - b;\n", false],
    ["a.py", "def f(x):\n    return x  # one\n", "def f( x ):\n    # doc\n    return x\n", true],
    ["a.py", "s = 'a  b'\n", "s = 'a b'\n", false],
    ["notes.unknownext", "one  two\nthree", "one two three\n", true],
    ["notes.unknownext", "one two", "one three", false],
  ])("%s: %j and %j are the same change: %s", async (path, a, b, expected) => {
    expect(await same(path, a, b)).toBe(expected);
  });
});
