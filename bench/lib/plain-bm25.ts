import fs from "node:fs";
import path from "node:path";
import bm25 from "wink-bm25-text-search";

// The reference "plain BM25" of shared/bench/README.md: whole Python files, path and text as one field,
// lowercase word tokens, Lucene's k1 and b, tests left out. It is deliberately none of our ranker's
// heuristics, so that our figures can be set next to it on the same instances.
const K1 = 0.9;
const B = 0.4;
const TEST_FILE = /(^|\/)(tests?|testing)\/|(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py)$/;
const PADDING = "\u0000pad";

// Words are runs of letters (split at underscores and digits), and each distinct query word counts
// once: of the variants tried on the dev set, this comes closest to the README's figures. Over every
// .py file it gets 30.0 / 56.7 / 66.7 / 76.7 / 90.0 % against the README's 30.0 / 56.7 / 70.0 / 80.0 /
// 90.0; leaving out the docs' conf.py files, as our listing once did by mistake, gives exactly the
// README's. Counting repeated query words (wink's default) puts recall@1 7 to 13 points above the
// README's whatever the tokenizer, and /[a-z0-9_]+/ words cost one instance each at @1, @3 and @5.
function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

/** Paths of the non-test `.py` files ranked by plain BM25 against the query, best first, ties by path; files sharing no word with the query are left out. */
export function rankPlain(files: Array<{ path: string; text: string }>, query: string): string[] {
  const docs = files.filter((file) => file.path.endsWith(".py") && !TEST_FILE.test(file.path));
  if (docs.length === 0) return [];
  const engine = bm25();
  engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: K1, b: B, k: 1 } });
  engine.definePrepTasks([words]);
  docs.forEach((doc, index) => engine.addDoc({ body: `${doc.path}\n${doc.text}` }, String(index)));
  // wink refuses to consolidate fewer than three documents; empty ones leave the others' order unchanged.
  for (let i = docs.length; i < 3; i++) engine.addDoc({ body: "" }, `${PADDING}${i}`);
  // The highest precision wink allows, so that rounding makes no ties of its own.
  engine.consolidate(9);
  return engine
    .search([...new Set(words(query))].join(" "), engine.getTotalDocs())
    .filter(([id]) => !id.startsWith(PADDING))
    .map(([id, score]) => ({ path: docs[Number(id)]!.path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((hit) => hit.path);
}

/**
 * Every `.py` file under root (links not followed, `.git` left out), read as UTF-8: the reference's
 * own file list, independent of the Custodian's candidate filters, so its figures do not move when
 * those filters change.
 */
export function listPythonFiles(root: string): Array<{ path: string; text: string }> {
  const files: Array<{ path: string; text: string }> = [];
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== ".git") pending.push(rel);
      else if (entry.isFile() && entry.name.endsWith(".py")) files.push({ path: rel, text: fs.readFileSync(path.join(root, rel), "utf8") });
    }
  }
  return files;
}
