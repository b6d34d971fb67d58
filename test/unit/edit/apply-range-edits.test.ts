import { describe } from "vitest";
import { JS, PY, lines, range, runCases, splice } from "./edit-cases.js";

const READ = "        data = f.read()";
const READ_STRIPPED = "        data = f.read().strip()";
const LOAD_BODY = "    with open(path) as f:\n        data = f.read()\n    return data";
const LOAD_NEW = '    with open(path, encoding="utf-8") as f:\n        return f.read()';
const LOAD_WANT = splice(PY, 5, 7, '    with open(path, encoding="utf-8") as f:', "        return f.read()");
const SAVE_WANT = splice(PY, 11, 13, '    with open(path, "w") as f:', "        f.write(data)", "    return len(data) + 0");
const TABS = lines("func main() {", "\tif ok {", "\t\trun()", "\t}", "}");

describe("range edits at the given lines", () => {
  runCases([
    { name: "one line", text: PY, edits: [range(6, 6, READ, READ_STRIPPED)], want: splice(PY, 6, 6, READ_STRIPPED) },
    { name: "several lines", text: PY, edits: [range(5, 7, LOAD_BODY, LOAD_NEW)], want: LOAD_WANT },
    { name: "the first line", text: PY, edits: [range(1, 1, "import os", "import os\nimport sys")], want: splice(PY, 1, 1, "import os", "import sys") },
    {
      name: "the last line",
      text: PY,
      edits: [range(24, 24, "        return save(os.path.join(self.root, key), value)", "        return save(self.path(key), value)")],
      want: splice(PY, 24, 24, "        return save(self.path(key), value)"),
    },
    { name: "the whole file", text: JS, edits: [range(1, 11, JS, "x\n")], want: "x\n" },
    {
      name: "an insertion: the line next to the place in old, kept in new",
      text: PY,
      edits: [range(4, 4, "def load(path):", "# loading\ndef load(path):")],
      want: splice(PY, 4, 3, "# loading"),
    },
    {
      name: "an insertion after the last line",
      text: PY,
      edits: [
        range(
          24,
          24,
          "        return save(os.path.join(self.root, key), value)",
          "        return save(os.path.join(self.root, key), value)\n\n\ndef extra():\n    pass",
        ),
      ],
      want: PY + "\n\ndef extra():\n    pass\n",
    },
    { name: "a deletion (empty new)", text: PY, edits: [range(10, 15, PY.split("\n").slice(9, 15).join("\n"), "")], want: splice(PY, 10, 15) },
    {
      name: "one line grows into two",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "  const sum = a + b;\n  return sum;")],
      want: splice(JS, 4, 4, "  const sum = a + b;", "  return sum;"),
    },
    {
      name: "three lines shrink into one",
      text: JS,
      edits: [range(3, 5, "function add(a, b) {\n  return a + b;\n}", "const add = (a, b) => a + b;")],
      want: splice(JS, 3, 5, "const add = (a, b) => a + b;"),
    },
    {
      name: "two edits",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "  return Number(a) + Number(b);"), range(8, 8, "  return a - b;", "  return Number(a) - Number(b);")],
      want: splice(splice(JS, 4, 4, "  return Number(a) + Number(b);"), 8, 8, "  return Number(a) - Number(b);"),
    },
    {
      name: "two edits given in reverse order",
      text: JS,
      edits: [range(8, 8, "  return a - b;", "  return Number(a) - Number(b);"), range(4, 4, "  return a + b;", "  return Number(a) + Number(b);")],
      want: splice(splice(JS, 4, 4, "  return Number(a) + Number(b);"), 8, 8, "  return Number(a) - Number(b);"),
    },
    {
      name: "adjacent edits",
      text: JS,
      edits: [range(4, 4, "  return a + b;", "  return b + a;"), range(5, 5, "}", "} // add")],
      want: splice(JS, 4, 5, "  return b + a;", "} // add"),
    },
    { name: "old and new ending with a newline", text: PY, edits: [range(6, 6, READ + "\n", READ_STRIPPED + "\n")], want: splice(PY, 6, 6, READ_STRIPPED) },
    { name: "new equal to old leaves the text as it was", text: PY, edits: [range(6, 6, READ, READ)], want: PY },
    {
      name: "empty old is refused: nothing checks what the range holds",
      text: PY,
      edits: [range(6, 6, "", "        data = f.read(10)")],
      error: ["Edit 1 (line 6): `old` is empty, so only the line numbers would say where the edit goes", "copy the line next to the place into `old`"],
    },
    {
      name: "an insertion with empty old is refused too: its place is not checked",
      text: PY,
      edits: [range(4, 3, "", "# loading\n")],
      error: ["Edit 1 (before line 4): `old` is empty", "write it in the replacement too, with the new lines before or after it"],
    },
    { name: "an insertion into an empty file", text: "", edits: [range(1, 0, "", "hello")], want: "hello\n" },
  ]);
});

describe("range edits whose line numbers are off", () => {
  runCases([
    { name: "one line too low", text: PY, edits: [range(7, 7, READ, READ_STRIPPED)], want: splice(PY, 6, 6, READ_STRIPPED) },
    { name: "one line too high", text: PY, edits: [range(5, 5, READ, READ_STRIPPED)], want: splice(PY, 6, 6, READ_STRIPPED) },
    { name: "two lines too low, several lines", text: PY, edits: [range(7, 9, LOAD_BODY, LOAD_NEW)], want: LOAD_WANT },
    { name: "three lines too high", text: PY, edits: [range(2, 4, LOAD_BODY, LOAD_NEW)], want: LOAD_WANT },
    { name: "a range shorter than old", text: PY, edits: [range(8, 8, LOAD_BODY, LOAD_NEW)], want: LOAD_WANT },
    { name: "a range longer than old", text: PY, edits: [range(5, 12, LOAD_BODY, LOAD_NEW)], want: LOAD_WANT },
    {
      name: "four lines off, the only match nearby",
      text: PY,
      edits: [range(16, 16, "        f.write(data)", "        f.write(data)\n        f.flush()")],
      want: splice(PY, 12, 12, "        f.write(data)", "        f.flush()"),
    },
    {
      name: "far off, the only match in the file",
      text: PY,
      edits: [range(24, 24, "import os", "import os\nimport sys")],
      want: splice(PY, 1, 1, "import os", "import sys"),
    },
    {
      name: "past the end of the file, text just above",
      text: JS,
      edits: [range(13, 13, "module.exports = { add, sub };", "module.exports = { add, sub, mul };")],
      want: splice(JS, 11, 11, "module.exports = { add, sub, mul };"),
    },
    {
      name: "a whitespace-only difference at the given lines beats an exact copy far away",
      text: lines("if a:", "    x = 1", ...Array(20).fill("pass"), "x = 1"),
      edits: [range(2, 2, "x = 1", "x = 2")],
      want: lines("if a:", "    x = 2", ...Array(20).fill("pass"), "x = 1"),
    },
    { name: "the nearest of two identical lines when clearly nearest", text: JS, edits: [range(6, 6, "}", "};")], want: splice(JS, 5, 5, "};") },
  ]);
});

describe("range edits with indentation the model got wrong", () => {
  runCases([
    {
      name: "lost indentation",
      text: PY,
      edits: [range(5, 6, "with open(path) as f:\n    data = f.read()", 'with open(path, "rb") as f:\n    data = f.read()')],
      want: splice(PY, 5, 6, '    with open(path, "rb") as f:', "        data = f.read()"),
    },
    {
      name: "extra indentation",
      text: PY,
      edits: [range(13, 13, "        return len(data)", "        return len(data) if data else 0")],
      want: splice(PY, 13, 13, "    return len(data) if data else 0"),
    },
    {
      name: "half the indentation lost",
      text: PY,
      edits: [range(21, 21, "    return load(os.path.join(self.root, key))", "    return load(self.path(key))")],
      want: splice(PY, 21, 21, "        return load(self.path(key))"),
    },
    {
      name: "lost indentation and two lines off",
      text: PY,
      edits: [range(23, 23, "return load(os.path.join(self.root, key))", "return load(self.path(key))")],
      want: splice(PY, 21, 21, "        return load(self.path(key))"),
    },
    {
      name: "a tab-indented file edited with spaces",
      text: TABS,
      edits: [range(2, 4, "    if ok {\n        run()\n    }", "    if ok && ready {\n        run()\n        log()\n    }")],
      want: lines("func main() {", "\tif ok && ready {", "\t\trun()", "\t\tlog()", "\t}", "}"),
    },
    { name: "a tab-indented file, indentation lost", text: TABS, edits: [range(3, 3, "run()", "run(ctx)")], want: splice(TABS, 3, 3, "\t\trun(ctx)") },
    {
      name: "a space-indented file edited with tabs",
      text: JS,
      edits: [range(4, 4, "\treturn a + b;", "\treturn a + b + 0;")],
      want: splice(JS, 4, 4, "  return a + b + 0;"),
    },
    {
      name: "old matched as written: new is taken as written, tabs included",
      text: JS,
      edits: [range(9, 9, "}", "}\n\nfunction mul(a, b) {\n\treturn a * b;\n}")],
      want: splice(JS, 9, 9, "}", "", "function mul(a, b) {", "\treturn a * b;", "}"),
    },
    {
      name: "new code nested deeper than old keeps its relative indentation",
      text: PY,
      edits: [range(6, 6, "data = f.read()", "data = f.read()\nif not data:\n    raise ValueError(path)")],
      want: splice(PY, 6, 6, READ, "        if not data:", "            raise ValueError(path)"),
    },
    {
      name: "blank lines in new stay blank",
      text: JS,
      edits: [range(4, 4, "return a + b;", "const s = a + b;\n\nreturn s;")],
      want: splice(JS, 4, 4, "  const s = a + b;", "", "  return s;"),
    },
    {
      name: "trailing spaces in old and new are dropped when the file has none",
      text: PY,
      edits: [range(6, 6, READ + "   ", READ_STRIPPED + "  ")],
      want: splice(PY, 6, 6, READ_STRIPPED),
    },
    {
      name: "trailing spaces in the file, none in old",
      text: lines("a = 1  ", "b = 2"),
      edits: [range(1, 1, "a = 1", "a = 10")],
      want: lines("a = 10", "b = 2"),
    },
    { name: "spacing inside the line differs", text: JS, edits: [range(4, 4, "  return a+b;", "  return a+b+1;")], want: splice(JS, 4, 4, "  return a+b+1;") },
  ]);
});

describe("range edits matched fuzzily or copied with extras", () => {
  const typo = '    with open(path, "w") as f:\n        f.wirte(data)\n    return len(data)';
  const fixed = '    with open(path, "w") as f:\n        f.write(data)\n    return len(data) + 0';
  const store = PY.split("\n")
    .slice(16, 21)
    .filter((l) => l !== "")
    .join("\n");
  runCases([
    { name: "a small typo in old", text: PY, edits: [range(11, 13, typo, fixed)], want: SAVE_WANT },
    { name: "a small typo, two lines off", text: PY, edits: [range(13, 15, typo, fixed)], want: SAVE_WANT },
    {
      name: "old left out a blank line",
      text: PY,
      edits: [range(17, 21, store, store.replace("self.root = root", "self.root = str(root)"))],
      want: splice(PY, 17, 21, ...store.replace("self.root = root", "self.root = str(root)").split("\n")),
    },
    {
      name: "old copied with the numbered view's prefixes",
      text: PY,
      edits: [range(5, 6, "5 |     with open(path) as f:\n6 |         data = f.read()", "    with open(path) as f:\n        data = f.read(1024)")],
      want: splice(PY, 5, 6, "    with open(path) as f:", "        data = f.read(1024)"),
    },
    {
      name: "Unicode text",
      text: lines("# café ☕", 'name = "Zoë"', 'emoji = "🎉"'),
      edits: [range(3, 3, 'emoji = "🎉"', 'emoji = "🎉🎉"')],
      want: lines("# café ☕", 'name = "Zoë"', 'emoji = "🎉🎉"'),
    },
    {
      name: "Unicode text with lost indentation",
      text: lines("def 问候():", '    return "你好"'),
      edits: [range(2, 2, 'return "你好"', 'return "你好，世界"')],
      want: lines("def 问候():", '    return "你好，世界"'),
    },
  ]);
});
