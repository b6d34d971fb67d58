/**
 * Edit benchmark (`npm run bench:edits`): do model-style edits apply to exactly the intended text?
 *
 * 1. Fetch consecutive published versions of a few npm packages with `npm pack` into bench/.cache/edits
 *    (gitignored; a filled cache makes the run offline).
 * 2. Pair the JS/TS files that changed; cut each change into hunks with one line of context.
 * 3. Turn each hunk into a range edit (line numbers + old text) and a search/replace block (grown until
 *    unique, as models are told to), then perturb them the way models err. The range edit is also sent the way
 *    developer-write-code answers it: written as a SEARCH/REPLACE block after some prose and read back with
 *    readEditBlock, the line numbers coming from developer-locate-lines.
 * 4. Apply each edit alone to the old file with applyEdits and compare with the old file plus that hunk;
 *    also send all of a file's range edits at once and compare with the new version.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { applyPatch, structuredPatch, type StructuredPatchHunk } from "diff";
import { applyEdits, type Edit, type RangeEdit } from "../src/edit/apply-edits.js";
import { readEditBlock } from "../src/llm/read-edit-block.js";
import { writeEditBlock } from "../src/llm/write-edit-block.js";

const VERSION_PAIRS: [name: string, from: string, to: string][] = [
  ["semver", "7.5.4", "7.6.0"],
  ["semver", "7.6.0", "7.6.1"],
  ["semver", "7.6.2", "7.6.3"],
  ["semver", "7.6.3", "7.7.0"],
  ["semver", "7.7.1", "7.7.2"],
  ["minimist", "1.2.5", "1.2.6"],
  ["minimist", "1.2.6", "1.2.7"],
  ["minimist", "1.2.7", "1.2.8"],
  ["yargs-parser", "20.2.9", "21.0.0"],
  ["yargs-parser", "21.0.1", "21.1.0"],
  ["yargs-parser", "21.1.0", "21.1.1"],
  ["commander", "11.0.0", "11.1.0"],
  ["commander", "12.0.0", "12.1.0"],
  ["chalk", "5.2.0", "5.3.0"],
  ["chalk", "5.3.0", "5.4.0"],
  ["ms", "2.1.2", "2.1.3"],
  ["debug", "4.3.4", "4.3.5"],
  ["debug", "4.3.5", "4.3.6"],
  ["yargs", "17.6.2", "17.7.0"],
  ["yargs", "17.7.1", "17.7.2"],
];
const CODE = /\.(?:[cm]?js|[cm]?ts|tsx|jsx)$/;
const root = dirname(fileURLToPath(import.meta.url));
const cacheDir = join(root, ".cache", "edits");
const resultFile = join(root, "results", "edits.json");

/** One change to apply: the text it starts from, the edit, and the text it must produce. */
interface Case {
  before: string;
  target: string;
  edit: Edit[];
}

/** The old file, the new one, and the hunks between them (one line of context). */
interface FilePair {
  label: string;
  before: string;
  after: string;
  hunks: StructuredPatchHunk[];
  /** The same change without context: edits that cover only the changed lines. */
  bareHunks: StructuredPatchHunk[];
}

type Tally = { total: number; exact: number; refused: number; wrong: number };

// 1. Fetch and unpack each version once; later runs read the cache only.
function unpacked(name: string, version: string): string {
  const dir = join(cacheDir, `${name}@${version}`);
  if (existsSync(join(dir, "package"))) return join(dir, "package");
  mkdirSync(dir, { recursive: true });
  const file = execFileSync("npm", ["pack", `${name}@${version}`, "--pack-destination", dir, "--silent"], { encoding: "utf8" })
    .trim()
    .split("\n")
    .pop()!;
  execFileSync("tar", ["-xzf", join(dir, file), "-C", dir]);
  return join(dir, "package");
}

function codeFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === "node_modules" ? [] : codeFiles(path, base);
    return CODE.test(entry) && !entry.endsWith(".min.js") ? [relative(base, path)] : [];
  });
}

// 2. Changed files with their hunks; bundles (very long lines) and CRLF originals are left out.
function filePairs(): { pairs: FilePair[]; missing: string[] } {
  const pairs: FilePair[] = [];
  const missing: string[] = [];
  for (const [name, from, to] of VERSION_PAIRS) {
    let oldDir: string, newDir: string;
    try {
      [oldDir, newDir] = [unpacked(name, from), unpacked(name, to)];
    } catch (error) {
      missing.push(`${name} ${from}→${to} (${String(error).split("\n")[0]})`);
      continue;
    }
    for (const file of codeFiles(newDir)) {
      if (!existsSync(join(oldDir, file))) continue;
      const [before, after] = [readFileSync(join(oldDir, file), "utf8"), readFileSync(join(newDir, file), "utf8")];
      if (before === after || before === "" || /\r/.test(before + after) || /^.{1000}/m.test(before + after)) continue;
      const hunksWith = (context: number) => structuredPatch(file, file, before, after, undefined, undefined, { context }).hunks;
      pairs.push({ label: `${name} ${from}→${to} ${file}`, before, after, hunks: hunksWith(1), bareHunks: hunksWith(0) });
    }
  }
  return { pairs, missing };
}

const linesOf = (text: string): string[] => text.split("\n");
/** A file's lines; the newline ending the last line does not start another. */
const fileLines = (text: string): string[] => linesOf(text.endsWith("\n") ? text.slice(0, -1) : text);
const sides = (hunk: StructuredPatchHunk): [string[], string[]] => {
  const body = hunk.lines.filter((line) => !line.startsWith("\\"));
  return [body.filter((l) => l[0] !== "+").map((l) => l.slice(1)), body.filter((l) => l[0] !== "-").map((l) => l.slice(1))];
};
// A hunk that changes only whether the file ends with a newline cannot be said with line edits.
const touchesFinalNewline = (hunk: StructuredPatchHunk): boolean => hunk.lines.some((l) => l.startsWith("\\"));

// 3. The edits a model would send for one hunk: its old and new lines, widened by unchanged lines while
//    the old lines hold no code (a model anchors on code, not on a blank line) or, for search/replace
//    blocks, while the search text is not unique (models are told to make it unique).
interface Block {
  start: number;
  old: string[];
  replacement: string[];
}

function widen(before: string, hunk: StructuredPatchHunk, unique: boolean): Block {
  const lines = fileLines(before);
  let [old, replacement] = sides(hunk);
  let [top, bottom] = [hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldLines];
  const needsMore = (): boolean => old.every((line) => line.trim() === "") || (unique && count(lines, old) > 1);
  while (needsMore() && (top > 0 || bottom < lines.length)) {
    if (top > 0) [old, replacement, top] = [[lines[top - 1]!, ...old], [lines[top - 1]!, ...replacement], top - 1];
    if (bottom < lines.length) [old, replacement, bottom] = [[...old, lines[bottom]!], [...replacement, lines[bottom]!], bottom + 1];
  }
  return { start: top + 1, old, replacement };
}

function rangeEdit(before: string, hunk: StructuredPatchHunk): RangeEdit {
  const { start, old, replacement } = widen(before, hunk, false);
  return { kind: "range", start, end: start + old.length - 1, old: old.join("\n"), new: replacement.join("\n") };
}

/** 0-based places where `needle` occurs in `haystack` as whole lines. */
function places(haystack: string[], needle: string[]): number[] {
  const found: number[] = [];
  for (let i = 0; i + needle.length <= haystack.length; i++) if (needle.every((line, k) => haystack[i + k] === line)) found.push(i);
  return found;
}
const count = (haystack: string[], needle: string[]): number => places(haystack, needle).length;

function searchReplace(before: string, hunk: StructuredPatchHunk): Edit {
  const { old, replacement } = widen(before, hunk, true);
  return { kind: "search-replace", search: old.join("\n"), replace: replacement.join("\n") };
}

// The ways models get edits wrong. Each returns null when it would not change this case.
type Perturb = (c: Case) => Case | null;
const mapTexts = (edit: Edit, f: (text: string) => string): Edit =>
  edit.kind === "range" ? { ...edit, old: f(edit.old), new: f(edit.new) } : { ...edit, search: f(edit.search), replace: f(edit.replace) };
const textsOf = (edit: Edit): string[] => (edit.kind === "range" ? [edit.old, edit.new] : [edit.search, edit.replace]);
const perLine = (f: (line: string) => string) => (text: string) => (text === "" ? "" : linesOf(text).map(f).join("\n"));
const one = (c: Case): Edit => c.edit[0]!;
const onEdit =
  (f: (edit: Edit) => Edit | null): Perturb =>
  (c) => {
    const edit = f(one(c));
    return edit ? { ...c, edit: [edit] } : null;
  };

const shift = (by: number): Perturb => onEdit((e) => (e.kind === "range" && e.start + by >= 1 ? { ...e, start: e.start + by, end: e.end + by } : null));
const loseIndent: Perturb = onEdit((e) => {
  const indents = textsOf(e)
    .flatMap(linesOf)
    .filter((l) => l.trim() !== "")
    .map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = Math.min(...indents);
  return common > 0 && Number.isFinite(common)
    ? mapTexts(
        e,
        perLine((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length))),
      )
    : null;
});
const addIndent: Perturb = onEdit((e) =>
  mapTexts(
    e,
    perLine((l) => (l.trim() === "" ? l : "    " + l)),
  ),
);
const trailingSpaces: Perturb = onEdit((e) =>
  mapTexts(
    e,
    perLine((l) => l + "  "),
  ),
);
const crlfEdit: Perturb = onEdit((e) => mapTexts(e, (t) => t.replace(/\n/g, "\r\n")));
const crlfFile: Perturb = (c) => ({ ...c, before: c.before.replace(/\n/g, "\r\n"), target: c.target.replace(/\n/g, "\r\n") });

/** Start the edit a few lines higher at a real line and write `// ...` for the unchanged lines skipped. */
const elide: Perturb = (c) => {
  const e = one(c);
  const lines = fileLines(c.before);
  const start = e.kind === "range" ? e.start : places(lines, linesOf(e.search))[0]! + 1;
  for (let anchor = start - 4; anchor >= Math.max(1, start - 12); anchor--) {
    const line = lines[anchor - 1]!;
    if (line.trim().length < 4 || (e.kind === "search-replace" && count(lines, [line]) > 1)) continue;
    const marker = /^[ \t]*/.exec(lines[anchor]!)![0] + "// ...";
    const wrap = (text: string): string => [line, marker, ...(text === "" ? [] : [text])].join("\n");
    const edit: Edit =
      e.kind === "range" ? { ...e, start: anchor, old: wrap(e.old), new: wrap(e.new) } : { ...e, search: wrap(e.search), replace: wrap(e.replace) };
    return { ...c, edit: [edit] };
  }
  return null;
};
const combine =
  (...steps: Perturb[]): Perturb =>
  (c) =>
    steps.reduce<Case | null>((acc, step) => (acc ? step(acc) : null), c);

/** One pair of adjacent letters swapped in the middle of old's longest line (old only: a misread). */
const typo: Perturb = onEdit((e) => {
  const [old] = textsOf(e);
  const lines = linesOf(old!);
  const longest = lines.reduce((best, line, k) => (line.trim().length > lines[best]!.trim().length ? k : best), 0);
  const line = lines[longest]!;
  const at = Math.floor(line.length / 2);
  if (line.trim().length < 8 || !/^[A-Za-z]{2}$/.test(line.slice(at, at + 2)) || line[at] === line[at + 1]) return null;
  lines[longest] = line.slice(0, at) + line[at + 1] + line[at] + line.slice(at + 2);
  const typed = lines.join("\n");
  return e.kind === "range" ? { ...e, old: typed } : { ...e, search: typed };
});

/** Leading spaces written as tabs, in a file indented with spaces. */
const tabs: Perturb = (c) => {
  const indents = fileLines(c.before)
    .map((l) => /^ */.exec(l)![0].length)
    .filter((n) => n > 0);
  const unit = Math.min(...indents);
  // Where the change itself brings tabs (a re-indentation upstream), tabs are intended, not an error.
  if (!Number.isFinite(unit) || /^\t/m.test(c.before) || /^\t/m.test(c.target)) return null;
  const toTabs = perLine((l) => {
    const n = /^ */.exec(l)![0].length;
    return "\t".repeat(Math.floor(n / unit)) + " ".repeat(n % unit) + l.slice(n);
  });
  const edit = mapTexts(one(c), toTabs);
  return textsOf(edit).join() === textsOf(one(c)).join() ? null : { ...c, edit: [edit] };
};

const WHITESPACE_PERTURBATIONS = /indentation|tabs|trailing/;
const changesWhitespaceOnly = (edit: Edit): boolean => {
  const [old, replacement] = textsOf(edit).map((t) => t.replace(/\s+/g, ""));
  return old === replacement;
};
const changesIndentChars = (edit: Edit): boolean => {
  const chars = (text: string): string => [...new Set(linesOf(text).flatMap((l) => [.../^[ \t]*/.exec(l)![0]]))].sort().join("");
  const [old, replacement] = textsOf(edit).map(chars);
  return old !== "" && replacement !== "" && old !== replacement;
};

/** Perturbations beyond the brief's list, reported apart from the overall figure. */
const EXTRAS: Record<string, Perturb> = {
  "lines off by +8": shift(8),
  "lines off by -10": shift(-10),
  "tabs for the file's spaces": tabs,
  "a typo in old": typo,
};

const PERTURBATIONS: Record<string, Perturb> = {
  none: (c) => c,
  "lines off by +1": shift(1),
  "lines off by -1": shift(-1),
  "lines off by +2": shift(2),
  "lines off by -2": shift(-2),
  "lines off by +3": shift(3),
  "lines off by -3": shift(-3),
  "indentation lost": loseIndent,
  "indentation added": addIndent,
  "trailing spaces": trailingSpaces,
  "CRLF edit, LF file": crlfEdit,
  "CRLF file, LF edit": crlfFile,
  "unchanged lines elided": elide,
  "off by 2 + indentation lost + trailing spaces": combine(shift(2), loseIndent, trailingSpaces),
};

/**
 * A range edit as developer-write-code's answer carries it: written as a SEARCH/REPLACE block and read back, the lines
 * shown to the model (the range of the file) telling the reader which `=======` divides.
 */
function throughBlock(c: Case): Case | { refused: string } {
  const edit = one(c) as RangeEdit;
  const shown = fileLines(c.before)
    .slice(edit.start - 1, edit.end)
    .join("\n");
  const read = readEditBlock(writeEditBlock(edit, "The lines change as the task says."), shown);
  return read.ok ? { ...c, edit: [{ ...edit, ...read.value }] } : { refused: read.problem };
}

// 4. Apply and compare.
function run(c: Case | { refused: string }, tally: Tally, failures: string[], label: string): void {
  tally.total++;
  if ("refused" in c) {
    tally.refused++;
    failures.push(`${label}: the answer was not read: ${c.refused}`);
    return;
  }
  const result = applyEdits(c.before, c.edit);
  if (result.ok && result.text === c.target) tally.exact++;
  else {
    if (result.ok) tally.wrong++;
    else tally.refused++;
    failures.push(`${label}: ${result.ok ? `applied to different text (${firstDifference(result.text, c.target)})` : result.error.split("\n")[0]}`);
  }
}

function firstDifference(got: string, want: string): string {
  const [a, b] = [linesOf(got), linesOf(want)];
  const at = a.findIndex((line, k) => line !== b[k]);
  const line = at === -1 ? a.length : at;
  return `line ${line + 1}: got ${JSON.stringify(a[line] ?? "<end>")}, want ${JSON.stringify(b[line] ?? "<end>")}`;
}

function main(): void {
  const started = performance.now();
  const { pairs, missing } = filePairs();
  const tallies = new Map<string, Tally>();
  const failures: string[] = [];
  const tally = (key: string): Tally => tallies.get(key) ?? tallies.set(key, { total: 0, exact: 0, refused: 0, wrong: 0 }).get(key)!;
  let hunkCount = 0;
  let skippedHunks = 0;
  let whitespaceOnly = 0;
  const allPerturbations = [...Object.entries(PERTURBATIONS), ...Object.entries(EXTRAS).map(([n, p]) => [`${n} (extra)`, p] as const)];
  for (const pair of pairs) {
    const kinds = [
      ["range", pair.hunks, rangeEdit],
      ["search/replace", pair.hunks, searchReplace],
      ["range, changed lines only", pair.bareHunks, rangeEdit],
      ["range, as a SEARCH/REPLACE answer", pair.hunks, rangeEdit],
    ] as const;
    for (const [kind, hunks, makeEdit] of kinds) {
      for (const hunk of hunks) {
        if (touchesFinalNewline(hunk)) {
          if (kind === "range") skippedHunks++;
          continue;
        }
        if (kind === "range") hunkCount++;
        const target = applyPatch(pair.before, { hunks: [hunk] } as never);
        if (target === false) throw new Error(`diff could not apply its own hunk in ${pair.label}`);
        const edit = makeEdit(pair.before, hunk);
        // A change of whitespace only, or of tabs to spaces (a re-indentation), is what whitespace
        // repair undoes: such hunks are not tested with whitespace perturbations.
        const reindents = changesWhitespaceOnly(edit) || changesIndentChars(edit);
        if (reindents && kind === "range") whitespaceOnly++;
        for (const [name, perturb] of allPerturbations) {
          if (reindents && WHITESPACE_PERTURBATIONS.test(name)) continue;
          const c = perturb({ before: pair.before, target, edit: [edit] });
          const sent = c && kind === "range, as a SEARCH/REPLACE answer" ? throughBlock(c) : c;
          if (sent) run(sent, tally(`${kind}\t${name}`), failures, `${kind} / ${name} / ${pair.label} @${hunk.oldStart}`);
        }
      }
    }
    if (pair.hunks.some(touchesFinalNewline)) continue;
    const all = pair.hunks.map((hunk) => rangeEdit(pair.before, hunk));
    for (const [name, perturb] of [
      ["none", (e: RangeEdit) => e],
      ["lines off by +2", (e: RangeEdit) => ({ ...e, start: e.start + 2, end: e.end + 2 })],
    ] as const) {
      run({ before: pair.before, target: pair.after, edit: all.map(perturb) }, tally(`whole file\t${name}`), failures, `whole file / ${name} / ${pair.label}`);
    }
  }
  report(pairs.length, hunkCount, skippedHunks, whitespaceOnly, missing, tallies, failures, performance.now() - started);
}

function report(
  files: number,
  hunks: number,
  skipped: number,
  whitespaceOnly: number,
  missing: string[],
  tallies: Map<string, Tally>,
  failures: string[],
  ms: number,
): void {
  const pct = (t: Tally): string => (t.total ? ((100 * t.exact) / t.total).toFixed(2) : "-").padStart(6) + " %";
  const overall: Tally = { total: 0, exact: 0, refused: 0, wrong: 0 };
  const extras: Tally = { total: 0, exact: 0, refused: 0, wrong: 0 };
  const answers: Tally = { total: 0, exact: 0, refused: 0, wrong: 0 };
  console.log(
    `Edit benchmark: ${VERSION_PAIRS.length - missing.length} version pairs, ${files} changed JS/TS files, ${hunks} hunks` +
      (skipped ? ` (${skipped} hunks changing only the final newline left out)` : ""),
  );
  console.log(`${whitespaceOnly} hunks change only whitespace or switch tabs/spaces; the whitespace perturbations skip them.`);
  if (missing.length) console.log(`Not fetched (run once with network access to fill ${cacheDir}):\n  ${missing.join("\n  ")}`);
  console.log(
    `\n${"edit kind".padEnd(36)}${"perturbation".padEnd(48)}${"exact".padStart(14)}${"share".padStart(10)}${"refused".padStart(9)}${"wrong".padStart(7)}`,
  );
  for (const [key, t] of tallies) {
    const [kind, name] = key.split("\t") as [string, string];
    const sum = name.endsWith("(extra)") ? extras : kind === "whole file" ? null : overall;
    if (sum) for (const k of ["total", "exact", "refused", "wrong"] as const) sum[k] += t[k];
    if (sum === overall && kind.includes("SEARCH/REPLACE answer")) for (const k of ["total", "exact", "refused", "wrong"] as const) answers[k] += t[k];
    console.log(
      `${kind.padEnd(36)}${name.padEnd(48)}${`${t.exact}/${t.total}`.padStart(14)}${pct(t).padStart(10)}${String(t.refused).padStart(9)}${String(t.wrong).padStart(7)}`,
    );
  }
  for (const [name, t] of [
    ["overall (single edits, brief's perturbations)", overall],
    ["extras (not in the target)", extras],
    ["of which written as developer-write-code answers (SEARCH/REPLACE blocks)", answers],
  ] as const) {
    console.log(
      `${name.padEnd(84)}${`${t.exact}/${t.total}`.padStart(14)}${pct(t).padStart(10)}${String(t.refused).padStart(9)}${String(t.wrong).padStart(7)}`,
    );
  }
  console.log(`\nTarget: ≥ 99 % applied to exactly the target text. Wall time ${(ms / 1000).toFixed(1)} s.`);
  if (failures.length) console.log(`First failures (all in ${relative(process.cwd(), resultFile)}):\n  ${failures.slice(0, 12).join("\n  ")}`);
  mkdirSync(dirname(resultFile), { recursive: true });
  writeFileSync(
    resultFile,
    JSON.stringify({ files, hunks, skipped, missing, overall, extras, answers, byCase: Object.fromEntries(tallies), failures }, null, 2),
  );
}

main();
