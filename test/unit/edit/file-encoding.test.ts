import { describe, expect, it } from "vitest";
import { decodeFile, encodeFile, findUnencodable } from "../../../src/edit/file-encoding.js";
import { encodePatch } from "../../../src/edit/encode-patch.js";

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))));

describe("decodeFile and encodeFile", () => {
  const cases: [name: string, file: Buffer, text: string, encoding: string][] = [
    ["plain UTF-8", Buffer.from("# café ☕\n", "utf8"), "# café ☕\n", "utf-8"],
    ["UTF-8 behind a byte-order mark, which is not part of the text", bytes([0xef, 0xbb, 0xbf], "a\r\nb\r\n"), "a\r\nb\r\n", "utf-8-bom"],
    ["bytes that are not UTF-8, read one character per byte", bytes("# caf", [0xe9], "\nx = 1\n"), "# café\nx = 1\n", "latin1"],
    ["Latin-1 bytes that UTF-8 would turn into U+FFFD, C1 range included", bytes([0x80, 0x9f, 0xff], "\n"), "\u0080\u009f\u00ff\n", "latin1"],
    ["an empty file", Buffer.alloc(0), "", "utf-8"],
  ];
  for (const [name, file, text, encoding] of cases) {
    it(`${name}: read, then written back byte for byte`, () => {
      const decoded = decodeFile(file);
      expect(decoded).toEqual({ text, encoding });
      expect(encodeFile(decoded.text, decoded.encoding).equals(file)).toBe(true);
    });
  }

  it("refuses to write a character the encoding cannot hold instead of mangling it", () => {
    expect(() => encodeFile("a\nb → c\n", "latin1")).toThrow(
      "cannot write the text as Latin-1 (ISO-8859-1), one byte per character: line 2, column 3 has '→' (U+2192)",
    );
    expect(() => encodeFile("x\uD800\n", "utf-8")).toThrow("line 1, column 2 has");
  });
});

describe("findUnencodable", () => {
  it("names the first character a Latin-1 file cannot hold, with its line and column", () => {
    expect(findUnencodable("café\r\nok\r\n  x = '€'\r\n", "latin1")).toBe("line 3, column 8 has '€' (U+20AC)");
  });
  it("accepts every Latin-1 character in a Latin-1 file and every character in a UTF-8 file", () => {
    expect(findUnencodable("é ÿ \u0080\n", "latin1")).toBeNull();
    expect(findUnencodable("→ 🎉 ☕\n", "utf-8-bom")).toBeNull();
  });
});

describe("encodePatch", () => {
  it("writes a Latin-1 file's lines as its own bytes, not as UTF-8", () => {
    const patch = encodePatch("docs/café.txt", "# café\nold\n", "# café\nnew\n", "latin1");
    expect(patch.includes(bytes(" # caf", [0xe9], "\n"))).toBe(true);
    expect(patch.includes(Buffer.from("é\n", "utf8"))).toBe(false);
    expect(patch.includes(Buffer.from("diff --git a/docs/café.txt b/docs/café.txt\n", "utf8"))).toBe(true);
    expect(patch.includes(bytes("-old\n+new\n"))).toBe(true);
  });
  it("keeps a byte-order mark on the first line it shows, once", () => {
    const patch = encodePatch("a.txt", "a\nb\n", "A\nb\n", "utf-8-bom");
    expect(patch.includes(bytes("-", [0xef, 0xbb, 0xbf], "a\n+", [0xef, 0xbb, 0xbf], "A\n"))).toBe(true);
  });
  it("is empty when nothing changed", () => expect(encodePatch("a.txt", "a\n", "a\n", "latin1").length).toBe(0));
});
