// Localization benchmark: recall@k of the Custodian's BM25 stage on SWE-bench-style instances.
//
//   npm run bench:locate -- --data FILE --repos DIR [--prepare-from MIRRORS] [--history-from MIRRORS] [--with-hints] [--rank key=value ...] [--baseline] [--verbose]
//
// DIR/<instance_id>/ must hold the instance's repository at its base_commit (a plain tree; no .git
// needed). --prepare-from MIRRORS creates the missing ones from bare git mirrors found under MIRRORS
// as <owner>+<name>/repo (the layout of this project's `fetch` tool), <owner>+<name>, <owner>/<name>.git
// or <name>.git. --baseline also ranks every .py file of the checkout by the plain BM25 of
// shared/bench/README.md (bench/lib/plain-bm25.ts) and prints its recall table under ours, so each
// figure has its reference. --history-from MIRRORS gives the ranking each instance's recent history, read from
// its repository's mirror at base_commit (the window jobs read: DEFAULT_HISTORY_WINDOW), as a job reads it
// from the fetched commits.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../src/config.js";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { listCandidates } from "../src/pipeline/locate/list-candidates.js";
import { DEFAULT_RANK_OPTIONS, rankFiles, type RankOptions } from "../src/pipeline/locate/rank-files.js";
import { listPythonFiles, rankPlain } from "./lib/plain-bm25.js";
import { findMirror, prepareCheckouts } from "../src/eval/prepare-checkouts.js";
import { DEFAULT_HISTORY_WINDOW } from "../src/git/commit-history.js";
import { readLocalHistory } from "../src/git/read-local-history.js";
import { readInstances } from "../src/eval/read-instances.js";
import { formatRecallTable, type RankOutcome } from "./lib/recall.js";

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    repos: { type: "string" },
    "prepare-from": { type: "string" },
    "history-from": { type: "string" },
    "with-hints": { type: "boolean", default: false },
    rank: { type: "string", multiple: true, default: [] },
    baseline: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
  },
});
if (!values.data || !values.repos) {
  console.error(
    "usage: npm run bench:locate -- --data FILE.jsonl --repos DIR [--prepare-from MIRRORS] [--history-from MIRRORS] [--with-hints] [--rank key=value] [--baseline] [--verbose]",
  );
  process.exit(2);
}

const options: RankOptions = { ...DEFAULT_RANK_OPTIONS };
for (const setting of values.rank) {
  const [key, value] = setting.split("=") as [keyof RankOptions, string];
  if (!(key in options) || Number.isNaN(Number(value))) {
    console.error(`--rank ${setting}: expected one of ${Object.keys(options).join(", ")} = a number`);
    process.exit(2);
  }
  options[key] = Number(value);
}

/** The 1-based rank of the best-ranked gold file among the ranked paths, or null when none is there. */
function goldRank(gold: string[], ranked: string[]): number | null {
  const ranks = gold.map((g) => ranked.indexOf(g)).filter((i) => i >= 0);
  return ranks.length > 0 ? Math.min(...ranks) + 1 : null;
}

const instances = readInstances(values.data);
if (values["prepare-from"]) await prepareCheckouts(instances, values["prepare-from"], values.repos, (l) => console.log(l));
const config = parseConfig({});
const outcomes: RankOutcome[] = [];
const plainOutcomes: RankOutcome[] = [];
const indexMs: number[] = [];
for (const instance of instances) {
  const root = path.join(values.repos, instance.instance_id);
  if (!fs.existsSync(root)) {
    console.error(`${root} does not exist: check out ${instance.repo} at ${instance.base_commit} there, or pass --prepare-from MIRRORS`);
    process.exit(1);
  }
  const started = performance.now();
  const candidates = await listCandidates(root, { exclude: config.exclude, maxFileBytes: config.max_file_bytes });
  // SWE-bench problem statements are the title, a blank line, then its body.
  const [title = "", ...rest] = instance.problem_statement.split("\n");
  const query = buildQuery({
    title: title.trim(),
    body: rest.join("\n"),
    hints: values["with-hints"] && instance.hints_text ? [instance.hints_text] : [],
  });
  const history = values["history-from"]
    ? await readLocalHistory({ gitDir: findMirror(values["history-from"], instance.repo) }, DEFAULT_HISTORY_WINDOW, instance.base_commit)
    : [];
  const ranked = await rankFiles(candidates.files, query, 1000, { ranking: options, history });
  const ms = performance.now() - started;
  indexMs.push(ms);
  const rank = goldRank(
    instance.gold_files,
    ranked.map((r) => r.path),
  );
  outcomes.push({ group: instance.repo, rank });
  let plain = "";
  // Outside the timing above: the baseline is a reference, not part of what the Custodian spends.
  if (values.baseline) {
    const plainRank = goldRank(instance.gold_files, rankPlain(listPythonFiles(root), instance.problem_statement));
    plainOutcomes.push({ group: instance.repo, rank: plainRank });
    plain = `  plain ${String(plainRank ?? "-").padStart(4)}`;
  }
  if (values.verbose) {
    console.log(
      `${instance.instance_id.padEnd(28)} rank ${String(rank ?? "-").padStart(4)}${plain}  ${candidates.files.length} files  ${history.length} commits  ${ms.toFixed(0)} ms  top: ${ranked
        .slice(0, 3)
        .map((r) => r.path)
        .join(", ")}`,
    );
  }
}
indexMs.sort((a, b) => a - b);
console.log(formatRecallTable(outcomes));
console.log(
  `index+rank time per instance: median ${indexMs[Math.floor(indexMs.length / 2)]!.toFixed(0)} ms, max ${indexMs[indexMs.length - 1]!.toFixed(0)} ms (${instances.length} instances)`,
);
console.log(`rank options: ${JSON.stringify(options)}`);
if (values.baseline) console.log(`\nplain BM25 (README reference)\n${formatRecallTable(plainOutcomes)}`);
