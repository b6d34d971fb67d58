import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../src/edit/index.js";
import { EDIT_BLOCK_ASKED, editBlockAnswer, readEditBlock } from "../../../src/llm/read-edit-block.js";
import { editBlockAnswer as scriptedBlock } from "../../support/edit-block-answer.js";

const BLOCK = ["<<<<<<< SEARCH", "    return a - b", "=======", "    return b - a", ">>>>>>> REPLACE"];
const answer = (...lines: string[]): string => lines.join("\n");
const problemOf = (raw: string, shown?: string): string => {
  const read = readEditBlock(raw, shown);
  if (read.ok) throw new Error(`expected a refusal, got ${JSON.stringify(read.value)}`);
  return read.problem;
};

describe("readEditBlock", () => {
  it("reads the lines replaced and their replacement, indentation kept, joined with \\n", () => {
    expect(readEditBlock(answer(...BLOCK))).toEqual({ ok: true, value: { old: "    return a - b", new: "    return b - a" } });
    const twoLines = answer("<<<<<<< SEARCH", "def f(a, b):", "    return a - b", "=======", "def f(a, b):", "    return b - a", ">>>>>>> REPLACE");
    expect(readEditBlock(twoLines)).toEqual({ ok: true, value: { old: "def f(a, b):\n    return a - b", new: "def f(a, b):\n    return b - a" } });
  });

  it("takes prose before and after the block, and a ``` fence around it", () => {
    const expected = { ok: true, value: { old: "    return a - b", new: "    return b - a" } };
    expect(readEditBlock(answer("The operands are swapped, so:", "", ...BLOCK, "", "That fixes the sign."))).toEqual(expected);
    expect(readEditBlock(answer("Here is the edit.", "```python", ...BLOCK, "```"))).toEqual(expected);
    expect(readEditBlock(answer("```", ...BLOCK, "```"))).toEqual(expected);
  });

  it("reads an answer with CRLF line ends, and leaves a <think> draft out", () => {
    expect(readEditBlock(BLOCK.join("\r\n") + "\r\n")).toEqual({ ok: true, value: { old: "    return a - b", new: "    return b - a" } });
    const drafted = answer("<think>", "<<<<<<< SEARCH", "x", "=======", "y", ">>>>>>> REPLACE", "</think>", ...BLOCK);
    expect(readEditBlock(drafted)).toEqual({ ok: true, value: { old: "    return a - b", new: "    return b - a" } });
  });

  it("keeps a <think> inside the block: only a draft at the very start of the answer is left out", () => {
    const code = 'return s.replace("<think>", "").replace("</think>", "")';
    const block = answer("<<<<<<< SEARCH", "return s", "=======", code, ">>>>>>> REPLACE");
    expect(readEditBlock(block)).toEqual({ ok: true, value: { old: "return s", new: code } });
    expect(readEditBlock(answer("<think>", "swap it", "</think>", block))).toEqual({ ok: true, value: { old: "return s", new: code } });
    const inSearch = answer("<<<<<<< SEARCH", "x = '<think>a</think>b'", "=======", "x = 'b'", ">>>>>>> REPLACE");
    expect(readEditBlock(inSearch)).toEqual({ ok: true, value: { old: "x = '<think>a</think>b'", new: "x = 'b'" } });
  });

  it("reads an empty REPLACE as a deletion, and one blank line as one blank line", () => {
    expect(readEditBlock(answer("<<<<<<< SEARCH", "x = 1", "=======", ">>>>>>> REPLACE"))).toEqual({ ok: true, value: { old: "x = 1", new: "" } });
    const blank = readEditBlock(answer("<<<<<<< SEARCH", "x = 1", "y = 2", "=======", "", ">>>>>>> REPLACE"));
    if (!blank.ok) throw new Error(blank.problem);
    // The edit machinery reads it back as one blank line in place of the two lines.
    const applied = applyEdits("a\nx = 1\ny = 2\nb\n", [{ kind: "range", start: 2, end: 3, ...blank.value }]);
    expect(applied).toMatchObject({ ok: true, text: "a\n\nb\n" });
    const gone = readEditBlock(answer("<<<<<<< SEARCH", "x = 1", "y = 2", "=======", ">>>>>>> REPLACE"));
    if (!gone.ok) throw new Error(gone.problem);
    expect(applyEdits("a\nx = 1\ny = 2\nb\n", [{ kind: "range", start: 2, end: 3, ...gone.value }])).toMatchObject({ ok: true, text: "a\nb\n" });
  });

  it("refuses an answer without a block", () => {
    expect(problemOf('{"old": "x", "new": "y"}')).toBe(
      "the answer holds no SEARCH/REPLACE block (no line `<<<<<<< SEARCH`); write your change as one such block",
    );
  });

  it("refuses two blocks, naming where each starts", () => {
    expect(problemOf(answer(...BLOCK, "and also", ...BLOCK))).toBe(
      "the answer holds 2 SEARCH/REPLACE blocks (lines `<<<<<<< SEARCH` at 1, 7, `>>>>>>> REPLACE` at 5, 11); write exactly one block, covering all the lines you replace",
    );
  });

  it("refuses a block without its =======, its >>>>>>> REPLACE or its <<<<<<< SEARCH", () => {
    expect(problemOf(answer("<<<<<<< SEARCH", "x", "y", ">>>>>>> REPLACE"))).toBe(
      "the block (lines 1-4) has no line `=======` between the lines you replace and their replacement; write that line between them",
    );
    expect(problemOf(answer("<<<<<<< SEARCH", "x", "=======", "y"))).toBe(
      "the block has no line `>>>>>>> REPLACE` after the replacement; end the block with that line",
    );
    expect(problemOf(answer("x", "=======", "y", ">>>>>>> REPLACE"))).toBe(
      "the block has no line `<<<<<<< SEARCH` before the lines it replaces; start the block with that line",
    );
    expect(problemOf(answer(">>>>>>> REPLACE", "x", "=======", "y", "<<<<<<< SEARCH"))).toBe(
      "the line `>>>>>>> REPLACE` (line 1) comes before `<<<<<<< SEARCH` (line 5); put SEARCH first",
    );
  });

  it("refuses markers that share their line with other text, naming the line", () => {
    expect(problemOf(answer("<<<<<<< SEARCH src/calc.py", "x", "=======", "y"))).toBe(
      "the marker `<<<<<<< SEARCH` must be alone on its line, exactly so, but line 1 is `<<<<<<< SEARCH src/calc.py`; put the marker on a line of its own",
    );
    expect(problemOf(answer("<<<<<<< SEARCH", "x", "=======", "y```>>>>>>> REPLACE"))).toBe(
      "the marker `>>>>>>> REPLACE` must be alone on its line, exactly so, but line 4 is `y```>>>>>>> REPLACE`; put the marker on a line of its own",
    );
    expect(problemOf(answer("<<<<<<< SEARCH", "x =======", "y", ">>>>>>> REPLACE"))).toBe(
      "the marker `=======` must be alone on its line, exactly so, but line 2 is `x =======`; put the marker on a line of its own",
    );
  });

  it("refuses an empty SEARCH, saying to quote the lines replaced and how to add lines", () => {
    const problem = problemOf(answer("<<<<<<< SEARCH", "=======", "import os", ">>>>>>> REPLACE"));
    expect(problem).toBe(
      "the SEARCH part is empty, so nothing says which lines change; copy into it the exact lines you replace, as the file shows them. " +
        "To add lines without removing any, copy the line next to the place into SEARCH and write it in REPLACE too, with the new " +
        "lines before or after it. This answer changes lines of the file you were shown; it does not create files",
    );
    expect(problemOf(answer("<<<<<<< SEARCH", "  ", "=======", "import os", ">>>>>>> REPLACE"))).toBe(problem);
  });

  it("finds the divider after the replaced lines' own ======= lines, and refuses to guess without them", () => {
    const heading = answer("<<<<<<< SEARCH", "Returns", "=======", "the sum", "=======", "Returns", "=======", "the total", ">>>>>>> REPLACE");
    expect(readEditBlock(heading, "Returns\n=======\nthe sum")).toEqual({
      ok: true,
      value: { old: "Returns\n=======\nthe sum", new: "Returns\n=======\nthe total" },
    });
    expect(problemOf(heading)).toBe(
      "the block has 3 lines `=======` (lines 3, 5, 7), so it is unclear where the lines you replace end; write one `=======` line, between the lines you replace and their replacement",
    );
  });

  it("reads what the scripted answers of the tests write, and says its format for the corrective message", () => {
    expect(editBlockAnswer().read(scriptedBlock("a\n  b", "a\n  c", { fence: true }))).toEqual({ ok: true, value: { old: "a\n  b", new: "a\n  c" } });
    expect(editBlockAnswer().read(scriptedBlock("a", ""))).toEqual({ ok: true, value: { old: "a", new: "" } });
    expect(editBlockAnswer().asked).toBe(EDIT_BLOCK_ASKED);
    expect(EDIT_BLOCK_ASKED).toMatch(/exactly one block: a line `<<<<<<< SEARCH`.*a line `=======`.*a line `>>>>>>> REPLACE`/);
  });
});
