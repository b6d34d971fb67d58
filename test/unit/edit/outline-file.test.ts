import { describe, expect, it } from "vitest";
import { NO_OUTLINE, namesIn, outlineFile } from "../../../src/edit/syntax/outline-file.js";

const rst = [
  "import re",
  "SEPARATOR = '='",
  "class RST(FixedWidth):",
  "    def __init__(self, header_rows=None):",
  "        def local():",
  "            pass",
  "        super().__init__(delimiter_pad=None, bookend=False, header_rows=header_rows)",
  "",
  "    def write(self, lines):",
  "        return lines",
  "",
  "def read_rst(path):",
  "    return path",
].join("\n");

describe("outlineFile", () => {
  it("shows classes, methods, functions and top-level names as signatures with line ranges, nested, without local functions", async () => {
    expect(await outlineFile(rst, "astropy/io/ascii/rst.py")).toBe(
      [
        "SEPARATOR = …  (line 2)",
        "class RST(FixedWidth)  (lines 3-10)",
        "  def __init__(self, header_rows=None)  (lines 4-7)",
        "  def write(self, lines)  (lines 9-10)",
        "def read_rst(path)  (lines 12-13)",
      ].join("\n"),
    );
  });

  it("stays within its bound and says how many definitions it left out, and on which lines", async () => {
    const many = Array.from({ length: 500 }, (_, i) => `def function_number_${i}(argument):\n    return argument\n`).join("");
    const outline = await outlineFile(many, "big.py", { maxChars: 1_000 });
    expect(outline.length).toBeLessThanOrEqual(1_000);
    const lines = outline.split("\n");
    expect(lines[0]).toBe("def function_number_0(argument)  (lines 1-2)");
    const shown = lines.length - 1;
    expect(lines[shown - 1]).toBe(`def function_number_${shown - 1}(argument)  (lines ${2 * shown - 1}-${2 * shown})`);
    expect(lines[shown]).toBe(`… (${500 - shown} more definitions, lines ${2 * shown + 1}-1000)`);
  });

  it("keeps, when cut, the methods the issue names with their class, then the top level, and marks each gap", async () => {
    const methods = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `    def method_number_${from + i}(self, argument):\n        return argument\n`).join("");
    const text = `class Context:\n${methods(0, 300)}    def quantize(self, exp):\n        return exp\n${methods(300, 100)}\ndef helper():\n    return 1\n`;
    const names = namesIn("Context.quantize rounds wrongly", "Calling `quantize` with a negative exponent");
    const outline = await outlineFile(text, "decimal.py", { maxChars: 1_000, names });
    expect(outline.length).toBeLessThanOrEqual(1_000);
    const lines = outline.split("\n");
    // The class and the named method far down, the top-level function after them, and what was left out between.
    expect(lines[0]).toBe("class Context  (lines 1-803)");
    expect(lines).toContain("  def quantize(self, exp)  (lines 602-603)");
    expect(lines[lines.length - 1]).toBe("def helper()  (lines 805-806)");
    expect(lines.filter((line) => /^ {2}… \(\d+ more definitions, lines \d+-\d+\)$/.test(line))).toHaveLength(2);
    const shownMethods = lines.filter((line) => line.includes("method_number_")).length;
    const leftOut = [...outline.matchAll(/… \((\d+) more/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    expect(shownMethods + leftOut).toBe(400);
    // Without names, the cut keeps the file's top level and its start.
    const plain = (await outlineFile(text, "decimal.py", { maxChars: 1_000 })).split("\n");
    expect(plain).not.toContain("  def quantize(self, exp)  (lines 602-603)");
    expect(plain[plain.length - 1]).toBe("def helper()  (lines 805-806)");
  });

  it("keeps a method the issue writes as code before one a plain word of it happens to name", async () => {
    const methods = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `    def method_number_${from + i}(self):\n        return 1\n`).join("");
    const text = `class Context:\n    def get(self, key):\n        return key\n${methods(0, 100)}    def value(self):\n        return 1\n${methods(100, 100)}    def quantize(self, exp):\n        return exp\n`;
    const names = namesIn("Context.quantize is slow", "To get the value I call it in a loop");
    expect(names.get("quantize")).toBe(2);
    expect(names.get("get")).toBe(1);
    expect((await outlineFile(text, "decimal.py", { maxChars: 120, names })).split("\n")).toEqual([
      "class Context  (lines 1-407)",
      "  … (202 more definitions, lines 2-405)",
      "  def quantize(self, exp)  (lines 406-407)",
    ]);
  });

  it("reads as code a word in backticks, in a chain, before a call or shaped like an identifier, and the rest as plain words", () => {
    const names = namesIn("`render` fails", "Table.merge and Server::close call flush() on iterContent, utf8 and header_rows; prose words stay plain");
    for (const word of ["render", "Table", "merge", "Server", "close", "flush", "iterContent", "utf8", "header_rows"]) expect(names.get(word)).toBe(2);
    for (const word of ["fails", "and", "call", "prose", "words", "plain"]) expect(names.get(word)).toBe(1);
  });

  it("says there is none for a language without a grammar and for a file that defines nothing", async () => {
    expect(await outlineFile("def f(): pass\n", "notes.txt")).toBe(NO_OUTLINE);
    expect(await outlineFile("print('hello')\n", "script.py")).toBe(NO_OUTLINE);
  });
});
