import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../src/edit/apply-edits.js";
import { numberLines } from "../../../src/edit/number-lines.js";

describe("numberLines", () => {
  it("numbers each line with ' | '", () => expect(numberLines("a\nb\n")).toBe("1 | a\n2 | b"));
  it("right-aligns the numbers", () => expect(numberLines("x\n".repeat(10)).split("\n")[0]).toBe(" 1 | x"));
  it("leaves empty lines without trailing spaces", () => expect(numberLines("a\n\nb")).toBe("1 | a\n2 |\n3 | b"));
  it("drops CRLF endings", () => expect(numberLines("a\r\nb\r\n")).toBe("1 | a\n2 | b"));
  it("shows nothing for an empty file", () => expect(numberLines("")).toBe(""));
  it("gives lines an edit copied from the view can anchor to", () => {
    const text = "def f():\n    return 1\n";
    const copied = numberLines(text).split("\n")[1]!;
    const result = applyEdits(text, [{ kind: "range", start: 2, end: 2, old: copied, new: "    return 2" }]);
    expect(result).toMatchObject({ ok: true, text: "def f():\n    return 2\n" });
  });
});
