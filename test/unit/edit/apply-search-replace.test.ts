import { describe } from "vitest";
import { JS, PY, lines, range, runCases, splice, sr } from "./edit-cases.js";

const REPEATED = lines("if a:", "    x = 1", "if b:", "    x = 1", "if c:", "    x = 1");

describe("search/replace edits", () => {
  runCases([
    { name: "an exact unique line", text: JS, edits: [sr("  return a - b;", "  return b - a;")], want: splice(JS, 8, 8, "  return b - a;") },
    {
      name: "several lines",
      text: JS,
      edits: [sr("function sub(a, b) {\n  return a - b;\n}", "function sub(a, b) {\n  return a - b - 0;\n}")],
      want: splice(JS, 8, 8, "  return a - b - 0;"),
    },
    { name: "a deletion (empty replace)", text: JS, edits: [sr("function sub(a, b) {\n  return a - b;\n}\n", "")], want: splice(JS, 7, 9) },
    {
      name: "lost indentation is restored",
      text: PY,
      edits: [sr('with open(path, "w") as f:\n    f.write(data)', 'with open(path, "w", encoding="utf-8") as f:\n    f.write(data)')],
      want: splice(PY, 11, 12, '    with open(path, "w", encoding="utf-8") as f:', "        f.write(data)"),
    },
    {
      name: "extra indentation is removed",
      text: JS,
      edits: [sr("    return a + b;", "    return a + b + 1;")],
      want: splice(JS, 4, 4, "  return a + b + 1;"),
    },
    {
      name: "a search that lost its indentation does not shift a replacement already at the file's",
      text: PY,
      edits: [sr('with open(path, "w") as f:\n    f.write(data)', '    with open(path, "w", encoding="utf-8") as f:\n        f.write(data)')],
      want: splice(PY, 11, 12, '    with open(path, "w", encoding="utf-8") as f:', "        f.write(data)"),
    },
    {
      name: "a search with extra indentation does not shift a replacement already at the file's",
      text: PY,
      edits: [
        sr(
          "        def get(self, key):\n            return load(os.path.join(self.root, key))",
          "    def get(self, key):\n        return load(self.path(key))",
        ),
      ],
      want: splice(PY, 20, 21, "    def get(self, key):", "        return load(self.path(key))"),
    },
    {
      name: "a search that lost its indentation does not shift a replacement already at the file's, nested deeper at first",
      text: PY,
      edits: [
        sr(
          "def get(self, key):\n    return load(os.path.join(self.root, key))",
          "        return load(self.path(key))\n\n    def has(self, key):\n        return True",
        ),
      ],
      want: splice(PY, 20, 21, "        return load(self.path(key))", "", "    def has(self, key):", "        return True"),
    },
    {
      name: "a search and a replacement that both lost their indentation: the replacement is shifted",
      text: PY,
      edits: [sr("def get(self, key):\n    return load(os.path.join(self.root, key))", "def get(self, key):\n    return load(self.path(key))")],
      want: splice(PY, 20, 21, "    def get(self, key):", "        return load(self.path(key))"),
    },
    {
      name: "a small typo matches fuzzily",
      text: PY,
      edits: [sr("    def get(self, key):\n        return laod(os.path.join(self.root, key))", "    def get(self, key):\n        return load(self.path(key))")],
      want: splice(PY, 21, 21, "        return load(self.path(key))"),
    },
    { name: "a CRLF search in an LF file", text: JS, edits: [sr("  return a + b;\r\n", "  return a * b;\r\n")], want: splice(JS, 4, 4, "  return a * b;") },
    {
      name: "a search copied with the numbered view's prefixes",
      text: JS,
      edits: [sr("8 |   return a - b;", "  return b - a;")],
      want: splice(JS, 8, 8, "  return b - a;"),
    },
    { name: "an empty search fills an empty file", text: "", edits: [sr("", "first line\n")], want: "first line\n" },
    {
      name: "mixed with a range edit",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "  return a + b + 0;"), sr("  return a - b;", "  return a - b - 0;")],
      want: splice(splice(JS, 4, 4, "  return a + b + 0;"), 8, 8, "  return a - b - 0;"),
    },
    {
      name: "ambiguous text is refused with every place listed",
      text: REPEATED,
      edits: [sr("    x = 1", "    x = 2")],
      error: ["fits 3 places equally well (exactly)", "line 2, line 4, line 6", "Add a few unchanged lines"],
    },
    {
      name: "ambiguous when whitespace is ignored",
      text: REPEATED,
      edits: [sr("x=1", "x=2")],
      error: ["fits 3 places equally well (when whitespace is ignored)"],
    },
    {
      name: "made unique with a line of context",
      text: REPEATED,
      edits: [sr("if b:\n    x = 1", "if b:\n    x = 2")],
      want: splice(REPEATED, 4, 4, "    x = 2"),
    },
    {
      name: "text not in the file is refused with the closest text",
      text: JS,
      edits: [sr("function mul(a, b) {\n  return a * b;\n}", "")],
      error: ["Edit 1 (search/replace): the `search` text is not in the file", "The closest text is at lines", "copied exactly from the file"],
    },
    { name: "an empty search in a non-empty file is refused", text: JS, edits: [sr("", "x")], error: ["`search` is empty"] },
  ]);
});
