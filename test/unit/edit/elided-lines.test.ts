import { describe } from "vitest";
import { JS, lines, range, runCases, splice } from "./edit-cases.js";

const PROCESS = lines(
  "def process(items):",
  "    total = 0",
  "    for item in items:",
  "        if item.skip:",
  "            continue",
  "        total += item.value",
  "    log(total)",
  "    return total",
);

describe("old text with elided lines", () => {
  runCases([
    {
      name: '"..." in old and new keeps the skipped lines',
      text: PROCESS,
      edits: [range(1, 8, "def process(items):\n    ...\n    return total", "def process(items, scale=1):\n    ...\n    return total * scale")],
      want: splice(splice(PROCESS, 1, 1, "def process(items, scale=1):"), 8, 8, "    return total * scale"),
    },
    {
      name: 'a "# ... existing code ..." comment',
      text: PROCESS,
      edits: [range(2, 8, "    total = 0\n    # ... existing code ...\n    return total", "    total = 0.0\n    # ... existing code ...\n    return total")],
      want: splice(PROCESS, 2, 2, "    total = 0.0"),
    },
    {
      name: 'a "// ..." comment in JavaScript',
      text: JS,
      edits: [range(3, 8, "function add(a, b) {\n// ...\n  return a - b;", "function add(a, b, c = 0) {\n// ...\n  return a - b - c;")],
      want: splice(splice(JS, 3, 3, "function add(a, b, c = 0) {"), 8, 8, "  return a - b - c;"),
    },
    {
      name: "no marker in new is refused: the skipped lines would be deleted unseen",
      text: PROCESS,
      edits: [range(1, 8, "def process(items):\n    ...\n    return total", "def process(items):\n    return sum(i.value for i in items if not i.skip)")],
      error: [
        'Edit 1 (lines 1-8): `old` skips 1 run(s) of lines with "..." (lines 2-7) but `new` has 0 such marker(s)',
        "copy the skipped lines into `old`",
        "The skipped lines:\n2 |     total = 0\n3 |     for item in items:",
      ],
    },
    {
      name: "replacing the skipped lines means writing them out in old",
      text: PROCESS,
      edits: [range(1, 8, PROCESS, "def process(items):\n    return sum(i.value for i in items if not i.skip)")],
      want: lines("def process(items):", "    return sum(i.value for i in items if not i.skip)"),
    },
    {
      name: "a marker that skips no line needs none in new",
      text: PROCESS,
      edits: [range(7, 8, "    log(total)\n    ...\n    return total", "    return total")],
      want: splice(PROCESS, 7, 8, "    return total"),
    },
    {
      name: "two skipped runs",
      text: PROCESS,
      edits: [
        range(
          1,
          8,
          "def process(items):\n    ...\n        total += item.value\n    ...\n    return total",
          "def process(items):\n    ...\n        total += item.value * 2\n    ...\n    return total",
        ),
      ],
      want: splice(PROCESS, 6, 6, "        total += item.value * 2"),
    },
    {
      name: "a different number of markers in new is refused",
      text: PROCESS,
      edits: [range(1, 8, "def process(items):\n    ...\n    for item in items:\n    ...\n    return total", "def process(items):\n    ...\n    return 0")],
      error: ["skips 2 run(s)", "has 1 such marker"],
    },
    {
      name: 'a literal "..." in Python is code, not an elision',
      text: lines("class P(Protocol):", "    def f(self): ...", "    def g(self):", "        ..."),
      edits: [range(3, 4, "    def g(self):\n        ...", "    def g(self) -> int:\n        ...")],
      want: lines("class P(Protocol):", "    def f(self): ...", "    def g(self) -> int:", "        ..."),
    },
    {
      name: "a marker opening both old and new changes nothing",
      text: PROCESS,
      edits: [range(6, 7, "...\n        total += item.value\n    log(total)", "...\n        total += item.value\n    log('total', total)")],
      want: splice(PROCESS, 7, 7, "    log('total', total)"),
    },
    {
      name: "elided lines and lost indentation",
      text: PROCESS,
      edits: [
        range(3, 7, "for item in items:\n    ...\n    total += item.value\nlog(total)", "for item in items:\n    ...\n    total += item.value * 2\nlog(total)"),
      ],
      want: splice(PROCESS, 6, 6, "        total += item.value * 2"),
    },
    {
      name: "a repeated first line: the place that starts at the given line",
      text: lines("x = 1", "a()", "x = 1", "b()", "c()", "return"),
      edits: [range(3, 6, "x = 1\n...\nreturn", "x = 2\n...\nreturn")],
      want: lines("x = 1", "a()", "x = 2", "b()", "c()", "return"),
    },
    {
      name: "old that starts with a marker new lacks is refused",
      text: PROCESS,
      edits: [range(6, 7, "...\n        total += item.value\n    log(total)", "        total += 1")],
      error: ["the `old` text is not at lines 6-7"],
    },
  ]);
});
