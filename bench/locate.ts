// Localization benchmark: recall@k of the Custodian's BM25 stage on SWE-bench-style instances.
//
//   npm run bench:locate -- --data FILE --repos DIR [--prepare-from MIRRORS] [--with-hints] [--rank key=value ...] [--verbose]
//
// DIR/<instance_id>/ must hold the instance's repository at its base_commit (a plain tree; no .git
// needed). --prepare-from MIRRORS creates the missing ones from bare git mirrors found under MIRRORS
// as <owner>+<name>/repo (the layout of this project's `fetch` tool), <owner>+<name>, <owner>/<name>.git
// or <name>.git.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../src/config.js";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { listCandidates } from "../src/pipeline/locate/list-candidates.js";
import { DEFAULT_RANK_OPTIONS, rankFiles, type RankOptions } from "../src/pipeline/locate/rank-files.js";
import { prepareCheckouts } from "./lib/prepare-checkouts.js";
import { readInstances } from "./lib/read-instances.js";
import { formatRecallTable, type RankOutcome } from "./lib/recall.js";

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    repos: { type: "string" },
    "prepare-from": { type: "string" },
    "with-hints": { type: "boolean", default: false },
    rank: { type: "string", multiple: true, default: [] },
    verbose: { type: "boolean", default: false },
  },
});
if (!values.data || !values.repos) {
  console.error("usage: npm run bench:locate -- --data FILE.jsonl --repos DIR [--prepare-from MIRRORS] [--with-hints] [--rank key=value] [--verbose]");
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

const instances = readInstances(values.data);
if (values["prepare-from"]) await prepareCheckouts(instances, values["prepare-from"], values.repos, (l) => console.log(l));
const config = parseConfig({});
const outcomes: RankOutcome[] = [];
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
  const ranked = rankFiles(candidates.files, query, 1000, options);
  const ms = performance.now() - started;
  indexMs.push(ms);
  const ranks = instance.gold_files.map((g) => ranked.findIndex((r) => r.path === g)).filter((i) => i >= 0);
  const rank = ranks.length > 0 ? Math.min(...ranks) + 1 : null;
  outcomes.push({ group: instance.repo, rank });
  if (values.verbose) {
    console.log(`${instance.instance_id.padEnd(28)} rank ${String(rank ?? "-").padStart(4)}  ${candidates.files.length} files  ${ms.toFixed(0)} ms  top: ${ranked.slice(0, 3).map((r) => r.path).join(", ")}`);
  }
}
indexMs.sort((a, b) => a - b);
console.log(formatRecallTable(outcomes));
console.log(
  `index+rank time per instance: median ${indexMs[Math.floor(indexMs.length / 2)]!.toFixed(0)} ms, max ${indexMs[indexMs.length - 1]!.toFixed(0)} ms (${instances.length} instances)`,
);
console.log(`rank options: ${JSON.stringify(options)}`);
