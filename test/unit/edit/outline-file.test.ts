import { describe, expect, it } from "vitest";
import { NO_OUTLINE, outlineFile } from "../../../src/edit/syntax/outline-file.js";

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

  it("stays within its bound and says how many definitions it left out", async () => {
    const many = Array.from({ length: 500 }, (_, i) => `def function_number_${i}(argument):\n    return argument\n`).join("");
    const outline = await outlineFile(many, "big.py", 1_000);
    expect(outline.length).toBeLessThanOrEqual(1_000 + 50);
    expect(outline.split("\n")[0]).toBe("def function_number_0(argument)  (lines 1-2)");
    const shown = outline.split("\n").length - 1;
    expect(outline.endsWith(`… (${500 - shown} more definitions not shown)`)).toBe(true);
  });

  it("says there is none for a language without a grammar and for a file that defines nothing", async () => {
    expect(await outlineFile("def f(): pass\n", "notes.txt")).toBe(NO_OUTLINE);
    expect(await outlineFile("print('hello')\n", "script.py")).toBe(NO_OUTLINE);
  });
});
