// How much of what tree-sitter says a file defines the fast pass finds, per language. The fast pass
// (extractDefinitions, patterns over every file) decides which files the ranking parses for the names
// an issue uses: a definition it misses is never weighed up, whatever tree-sitter would have said.
//
//   npm run bench:fast-pass -- --dir DIR [--dir DIR …]
//
// For each file with a shipped grammar under the folders, both are run; per language the table gives
// the files, the classes, functions and methods tree-sitter finds (top-level names left out: the fast
// pass looks for them only where a keyword says `const` or `let`), the share of those names the fast
// pass finds too, the names it finds that tree-sitter does not define (calls or prototypes taken
// for definitions, or definitions tree-sitter's grammar does not name), and the fast pass's time.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { extname } from "node:path";
import { listCandidates } from "../src/pipeline/locate/list-candidates.js";
import { extractDefinitions } from "../src/pipeline/locate/extract-definitions.js";
import { parseDefinitions } from "../src/edit/syntax/parse-definitions.js";
import { grammarForPath } from "../src/edit/syntax/grammar-for-path.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({ options: { dir: { type: "string", multiple: true, default: [] } } });
if (values.dir.length === 0) {
  console.error("usage: npm run bench:fast-pass -- --dir DIR [--dir DIR …]");
  process.exit(2);
}

interface Tally {
  files: number;
  defined: number;
  found: number;
  extra: number;
  bytes: number;
  ms: number;
}
const byLanguage = new Map<string, Tally>();
for (const dir of values.dir) {
  if (!fs.existsSync(dir)) {
    console.error(`${dir} does not exist`);
    process.exit(1);
  }
  const { files } = await listCandidates(dir, { exclude: [], maxFileBytes: 512 * 1024 });
  for (const file of files) {
    const { text } = file;
    // Null for a file without a grammar, or with a data or markup one: what the ranking never parses.
    const parsed = await parseDefinitions(text, file.path);
    if (!parsed) continue;
    const grammar = grammarForPath(file.path)!;
    const started = performance.now();
    const fast = new Set(extractDefinitions(text, file.path));
    const ms = performance.now() - started;
    const exact = new Set(parsed.filter((d) => d.kind !== "name").map((d) => d.name));
    const all = new Set(parsed.map((d) => d.name));
    const language = grammar === "cpp" && extname(file.path) === ".h" ? "cpp (.h)" : grammar;
    const tally = byLanguage.get(language) ?? { files: 0, defined: 0, found: 0, extra: 0, bytes: 0, ms: 0 };
    tally.files++;
    tally.defined += exact.size;
    for (const name of exact) if (fast.has(name)) tally.found++;
    for (const name of fast) if (!all.has(name)) tally.extra++;
    tally.bytes += file.bytes.length;
    tally.ms += ms;
    byLanguage.set(language, tally);
  }
}

const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);
printTable([
  ["language", "files", "defined", "fast pass finds", "extra names", "ms per MB"],
  ...[...byLanguage]
    .sort((a, b) => b[1].files - a[1].files)
    .map(([language, t]) => [language, String(t.files), String(t.defined), percent(t.found, t.defined), String(t.extra), (t.ms / (t.bytes / 1e6)).toFixed(1)]),
]);
