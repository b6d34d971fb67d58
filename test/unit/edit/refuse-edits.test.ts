import { describe } from "vitest";
import { JS, PY, lines, range, runCases, splice } from "./edit-cases.js";

const BLOCKS = lines("a()", "}", "b()", "}", "c()", "}", "d()");

describe("edits that are refused, with a message for the model", () => {
  runCases([
    { name: "no edits", text: JS, edits: [], error: ["No edits were given"] },
    { name: "start 0", text: JS, edits: [range(0, 1, "", "x")], error: ["start ≥ 1", "start=0"] },
    {
      name: "end before start - 1",
      text: JS,
      edits: [range(5, 2, "}", "x")],
      error: ["end ≥ start", "give the line next to the place and keep that line in `new`"],
    },
    { name: "a line number that is not whole", text: JS, edits: [range(1.5, 2, "", "x")], error: ["whole line numbers", "start=1.5"] },
    { name: "a range past the end with empty old", text: JS, edits: [range(12, 14, "", "x")], error: ["Edit 1 (lines 12-14): `old` is empty"] },
    {
      name: "a range far past the end, text not near it",
      text: JS,
      edits: [range(200, 201, '"use strict";', "")],
      error: ["lines 200-201 is outside the file (it has 11 lines)", "not within 15 lines of it"],
    },
    {
      name: "overlapping ranges, both exact",
      text: JS,
      edits: [range(3, 5, "function add(a, b) {\n  return a + b;\n}", "x"), range(4, 4, "  return a + b;", "y")],
      error: ["Edit 1 (lines 3-5) and Edit 2 (line 4) overlap", "merge them into one edit"],
    },
    {
      name: "ranges that overlap once re-anchored",
      text: JS,
      edits: [range(7, 9, "function add(a, b) {\n  return a + b;\n}", "x"), range(1, 1, "  return a + b;", "y")],
      error: ["overlap", "placed at lines 3-5 and line 4"],
    },
    { name: "an edit without text", text: JS, edits: [{ kind: "range", start: 1, end: 1, old: "x" } as never], error: ["with text as strings"] },
    { name: "the same range twice", text: JS, edits: [range(4, 4, "  return a + b;", "x"), range(4, 4, "  return a + b;", "y")], error: ["overlap"] },
    {
      name: "equally near identical lines",
      text: BLOCKS,
      edits: [range(3, 3, "}", "};")],
      error: ["fits 3 places equally well (exactly): line 2, line 4, line 6", "give that place's line numbers"],
    },
    {
      name: "identical lines none of which is within three lines",
      text: lines("}", ...Array(8).fill("x"), "}", ...Array(9).fill("y"), "}"),
      edits: [range(5, 5, "}", "};")],
      error: ["fits 3 places equally well", "line 1, line 10, line 20"],
    },
    {
      name: "text that is nowhere, with the closest text quoted",
      text: PY,
      edits: [range(6, 6, "        contents = f.read_all()", "        contents = f.read()")],
      error: [
        "Edit 1 (line 6): the `old` text is not at line 6, nor anywhere else in the file",
        "The closest text is at line 6 (similarity",
        "6 |         data = f.read()",
        "Send the edit again",
      ],
    },
    { name: "old with only blank lines", text: PY, edits: [range(2, 3, "\n\n", "x")], error: ["holds no code to find"] },
    {
      name: "every failing edit is reported",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "ok"), range(0, 0, "", "x"), sr2("nothing like this")],
      error: ["Edit 2 (line 0)", "Edit 3 (search/replace)"],
    },
    {
      name: "an ambiguous fuzzy match",
      text: lines("const a1 = compute(1, 2);", "const a3 = compute(1, 2);"),
      edits: [range(1, 2, "const a2 = compute(1, 2);", "const b = compute(1, 2);")],
      error: ["fits 2 places equally well (at similarity ≥ 0.9)"],
    },
    {
      name: "insertions into an empty file keep their order",
      text: "",
      edits: [range(1, 0, "", "// one"), range(1, 0, "", "// two")],
      want: "// one\n// two\n",
    },
    {
      name: "two insertions anchored on one line overlap",
      text: JS,
      edits: [range(5, 5, "}", "}\n// one"), range(5, 5, "}", "}\n// two")],
      error: ["Edit 1 (line 5) and Edit 2 (line 5) overlap", "merge them into one edit"],
    },
    {
      name: "an insertion anchored on the line after a replaced range is not an overlap",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "  return b + a;"), range(5, 5, "}", "  // done\n}")],
      want: splice(JS, 4, 4, "  return b + a;", "  // done"),
    },
    {
      name: "look-alike code is not a fuzzy match",
      text: JS,
      edits: [range(7, 9, "function mul(a, b) {\n  return a * b;\n}", "")],
      error: ["the `old` text is not at lines 7-9", "The closest text is at lines 7-9"],
    },
  ]);
});

function sr2(search: string) {
  return { kind: "search-replace" as const, search, replace: "" };
}
