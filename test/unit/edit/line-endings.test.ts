import { describe } from "vitest";
import { JS, range, runCases, splice, sr } from "./edit-cases.js";

const CRLF = "a\r\nb\r\nc\r\n";

describe("line endings and the final newline are kept", () => {
  runCases([
    { name: "a CRLF file edited with LF text", text: CRLF, edits: [range(2, 2, "b", "B")], want: "a\r\nB\r\nc\r\n" },
    { name: "a CRLF file edited with CRLF text", text: CRLF, edits: [range(2, 2, "b\r\n", "B1\r\nB2\r\n")], want: "a\r\nB1\r\nB2\r\nc\r\n" },
    {
      name: "an LF file edited with CRLF text",
      text: JS,
      edits: [range(4, 4, "  return a + b;\r\n", "  return a + b + 1;\r\n")],
      want: splice(JS, 4, 4, "  return a + b + 1;"),
    },
    { name: "a CRLF file without a final newline, last line replaced", text: "a\r\nb\r\nc", edits: [range(3, 3, "c", "C\nD")], want: "a\r\nb\r\nC\r\nD" },
    { name: "an LF file without a final newline, middle line replaced", text: "a\nb\nc", edits: [range(2, 2, "b", "B")], want: "a\nB\nc" },
    { name: "no final newline, even when new ends with one", text: "a\nb\nc", edits: [range(3, 3, "c\n", "C\n")], want: "a\nb\nC" },
    { name: "old without a final newline: new's final newline adds a blank line", text: "a\nb\n", edits: [range(1, 1, "a", "A\n")], want: "A\n\nb\n" },
    { name: "old ending in a newline, new without one: old ends with a blank line", text: "a\n\nb\n", edits: [sr("a\n", "A")], want: "A\nb\n" },
    { name: "a search ending in a blank line that is only unique that way", text: "x\n\nx\n\n\nq\n", edits: [sr("x\n\n", "X\n\n")], want: "x\n\nX\n\n\nq\n" },
    { name: "old with a final newline: new's final newline only ends its line", text: "a\nb\n", edits: [range(1, 1, "a\n", "A\n")], want: "A\nb\n" },
    { name: "a line added after a last line without newline", text: "a\nb", edits: [range(2, 2, "b", "b\nc")], want: "a\nb\nc" },
    { name: "the last line deleted, final newline kept", text: "a\nb\nc\n", edits: [range(3, 3, "c", "")], want: "a\nb\n" },
    { name: "the last line deleted, still no final newline", text: "a\nb\nc", edits: [range(3, 3, "c", "")], want: "a\nb" },
    {
      name: "mixed endings: untouched lines keep theirs, new ones get CRLF",
      text: "a\r\nb\nc\r\nd\r\n",
      edits: [range(3, 3, "c", "C")],
      want: "a\r\nb\nC\r\nd\r\n",
    },
    { name: "mixed endings: LF dominant", text: "a\nb\r\nc\nd\n", edits: [range(3, 3, "c", "C")], want: "a\nb\r\nC\nd\n" },
    { name: "an insertion into a CRLF file", text: "a\r\nb\r\n", edits: [range(1, 1, "a", "a\nx")], want: "a\r\nx\r\nb\r\n" },
    { name: "search/replace with LF text in a CRLF file", text: CRLF, edits: [sr("b\nc", "B\nC")], want: "a\r\nB\r\nC\r\n" },
    // The text has no byte-order mark (decodeFile keeps it in the encoding); a model that echoes one adds none.
    { name: "old and new that start with a byte-order mark", text: "a\r\nb\r\n", edits: [range(1, 1, "\uFEFFa", "\uFEFFA")], want: "A\r\nb\r\n" },
    { name: "search and replace that start with a byte-order mark", text: "a\nb\n", edits: [sr("\uFEFFa\nb", "\uFEFFA\nb")], want: "A\nb\n" },
    { name: "a whole CRLF file deleted", text: CRLF, edits: [range(1, 3, "a\nb\nc", "")], want: "" },
    { name: "old joined with newlines counts its trailing blank line", text: "a\n\n\nb\n", edits: [range(1, 3, "a\n\n", "x\n")], want: "x\n\nb\n" },
  ]);
});
