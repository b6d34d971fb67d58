import { expect, it } from "vitest";
import { applyEdits, type Edit } from "../../../src/edit/apply-edits.js";

/** Lines joined with "\n", ending with a newline: the shape of most source files. */
export const lines = (...xs: string[]): string => xs.map((x) => x + "\n").join("");

/** The text with lines start..end (1-based, inclusive) replaced: how the expected results are written. */
export function splice(text: string, start: number, end: number, ...replacement: string[]): string {
  const all = text.split("\n");
  all.splice(start - 1, end - start + 1, ...replacement);
  return all.join("\n");
}

export const PY = lines(
  "import os",
  "",
  "",
  "def load(path):",
  "    with open(path) as f:",
  "        data = f.read()",
  "    return data",
  "",
  "",
  "def save(path, data):",
  '    with open(path, "w") as f:',
  "        f.write(data)",
  "    return len(data)",
  "",
  "",
  "class Store:",
  "    def __init__(self, root):",
  "        self.root = root",
  "",
  "    def get(self, key):",
  "        return load(os.path.join(self.root, key))",
  "",
  "    def put(self, key, value):",
  "        return save(os.path.join(self.root, key), value)",
);

export const JS = lines(
  '"use strict";',
  "",
  "function add(a, b) {",
  "  return a + b;",
  "}",
  "",
  "function sub(a, b) {",
  "  return a - b;",
  "}",
  "",
  "module.exports = { add, sub };",
);

/** A plain (text, edits) → text case, or → an error whose message contains every given fragment. */
export interface EditCase {
  name: string;
  text: string;
  edits: Edit[];
  want?: string;
  error?: string[];
}

/** One vitest case per table row. */
export function runCases(cases: EditCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const result = applyEdits(c.text, c.edits);
      if (c.error) {
        expect(result.ok, result.ok ? `applied as:\n${result.text}` : "").toBe(false);
        if (!result.ok) for (const fragment of c.error) expect(result.error).toContain(fragment);
      } else {
        expect(result.ok ? "" : result.error).toBe("");
        if (result.ok) expect(result.text).toBe(c.want);
      }
    });
  }
}

/** A range edit, written the way the cases read best. */
export const range = (start: number, end: number, old: string, replacement: string): Edit => ({
  kind: "range",
  start,
  end,
  old,
  new: replacement,
});

/** A search/replace edit. */
export const sr = (search: string, replace: string): Edit => ({ kind: "search-replace", search, replace });
