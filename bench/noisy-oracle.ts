// The noisy oracle (`npm run bench:noisy-oracle`): how much of what the oracle reproduces survives answers sent the way
// real models err. Runs `magis eval --oracle` on the dev split at each noise level (the same seed), and reports per
// level: instances whose patch is the gold patch (eval's own comparison: no loss, the patch applies) and those whose
// patch is the clean run's, byte for byte; the noise applied, the corrective retries it cost, tokens, model calls; and
// for each instance lost against the clean run, the kinds of noise its calls carried (each loss shared among them).
//
//   npm run bench:noisy-oracle -- [--data FILE] [--repos DIR] [--out DIR] [--levels 0,0.1,0.3] [--seed 1]
//                                  [--concurrency 2] [--instances ID,…] [--clean DIR]
// --clean DIR takes an earlier `magis eval --oracle` run without noise (its --out) as level 0 instead of running it.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { main } from "../src/cli.js";
import { processIo } from "../src/cli/io.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "/work/data/dev-test.jsonl" },
    repos: { type: "string", default: "/work/data/checkouts" },
    out: { type: "string", default: "/tmp/noisy-oracle" },
    levels: { type: "string", default: "0,0.1,0.3" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "2" },
    instances: { type: "string" },
    clean: { type: "string" },
  },
});
const levels = values.levels.split(",").map((level) => level.trim());

interface Result {
  instance_id: string;
  applies: boolean | null;
  losses?: unknown[];
  failure: { stage: string; reason: string } | null;
  calls: number;
  tokens: Record<string, { total: number }>;
}
interface NoiseLine {
  instance_id: string;
  prompt: string;
  noise: string | null;
  retry: boolean;
}
interface Level {
  level: string;
  results: Map<string, Result>;
  patches: Map<string, string>;
  noise: NoiseLine[];
}

const readLines = <T>(file: string): T[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T)
    : [];

/** One level's figures: an earlier clean run's folder at level 0 with --clean, else a run of its own. */
async function runLevel(level: string): Promise<Level> {
  const reuse = Number(level) === 0 && values.clean !== undefined;
  const out = reuse ? values.clean! : path.join(values.out, `noise-${level}`);
  if (!reuse) await runEval(level, out);
  const results = readLines<Result>(path.join(out, "results.jsonl"));
  const predictions = readLines<{ instance_id: string; model_patch: string }>(path.join(out, "predictions.jsonl"));
  return {
    level,
    results: new Map(results.map((r) => [r.instance_id, r])),
    patches: new Map(predictions.map((p) => [p.instance_id, p.model_patch])),
    noise: readLines<NoiseLine>(path.join(out, "noise.jsonl")),
  };
}

/** One `magis eval --oracle` run at a noise level, into `out` (emptied first). */
async function runEval(level: string, out: string): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  const args = ["eval", "--oracle", "--data", values.data, "--repos", values.repos, "--out", out, "--concurrency", values.concurrency];
  if (Number(level) > 0) args.push("--noise", level, "--seed", values.seed);
  if (values.instances) args.push("--instances", values.instances);
  const started = Date.now();
  const code = await main(args, { ...processIo, stdout: () => {}, isTTY: false });
  if (code !== 0) throw new Error(`magis eval at noise ${level} exited ${code}; see its progress lines above`);
  console.error(`noise ${level}: ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Eval's own measure: a patch that applies, with no loss against the gold patch. */
const isGold = (result: Result | undefined) => result !== undefined && result.applies === true && (result.losses ?? []).length === 0;

// Kinds the pipeline reads exactly as the clean answer (parseJsonLeniently, matchFieldNames, the edit block's reader).
const WRAPPERS = new Set(["fenced", "in-prose", "think-block", "field-case"]);

/**
 * The kinds of noise an instance's calls carried that may have cost it: of the calls whose next call of the same prompt
 * was not a corrective retry (absorbed silently, or harmful), those that change more than the wrapping; else those
 * calls' kinds; else every kind it carried.
 */
function suspects(noise: NoiseLine[], instance: string): string[] {
  const calls = noise.filter((line) => line.instance_id === instance);
  const carried = calls.filter((line) => line.noise !== null);
  const uncorrected = carried.filter((line) => !calls.slice(calls.indexOf(line) + 1).find((later) => later.prompt === line.prompt)?.retry);
  const changing = uncorrected.filter((line) => !WRAPPERS.has(line.noise!));
  const chosen = changing.length > 0 ? changing : uncorrected.length > 0 ? uncorrected : carried;
  return [...new Set(chosen.map((line) => line.noise!))];
}

const runs: Level[] = [];
for (const level of levels) runs.push(await runLevel(level));
const clean = runs[0]!;
// With --clean over more instances than --instances selects, the instances every level ran.
const ids = [...clean.results.keys()].filter((id) => runs.every((run) => run.results.has(id)));
const cleanGold = ids.filter((id) => isGold(clean.results.get(id)));

const rows = [["noise", "gold patch", "kept of clean", "same as clean", "noisy answers", "retries", "calls", "tokens"]];
const report: unknown[] = [];
for (const run of runs) {
  const gold = ids.filter((id) => isGold(run.results.get(id)));
  const same = ids.filter((id) => run.patches.get(id) === clean.patches.get(id) && (clean.patches.get(id) ?? "") !== "");
  const noisy = run.noise.filter((line) => line.noise !== null);
  const retries = run.noise.filter((line) => line.retry).length;
  const results = [...run.results.values()];
  const calls = results.reduce((n, r) => n + r.calls, 0);
  const tokens = results.reduce((n, r) => n + Object.values(r.tokens).reduce((m, t) => m + t.total, 0), 0);
  const byKind: Record<string, number> = {};
  for (const line of noisy) byKind[line.noise!] = (byKind[line.noise!] ?? 0) + 1;
  const lost = cleanGold.filter((id) => !isGold(run.results.get(id)));
  const share: Record<string, number> = {};
  const losses = lost.map((id) => {
    const kinds = suspects(run.noise, id);
    for (const kind of kinds) share[kind] = (share[kind] ?? 0) + 1 / kinds.length;
    const result = run.results.get(id);
    return { instance: id, kinds, failure: result?.failure ?? null, losses: result?.losses ?? [] };
  });
  const kept = cleanGold.length === 0 ? 1 : gold.filter((id) => cleanGold.includes(id)).length / cleanGold.length;
  rows.push([
    run.level,
    `${gold.length}/${ids.length}`,
    `${(100 * kept).toFixed(1)} %`,
    `${same.length}/${ids.length}`,
    `${noisy.length} of ${run.noise.filter((line) => !line.retry).length}`,
    String(retries),
    String(calls),
    `${(tokens / 1e6).toFixed(2)}M`,
  ]);
  report.push({ level: run.level, gold: gold.length, instances: ids.length, kept, same: same.length, noisy: byKind, retries, calls, tokens, losses, share });
}
printTable(rows);
for (const entry of report as {
  level: string;
  noisy: Record<string, number>;
  losses: { instance: string; kinds: string[] }[];
  share: Record<string, number>;
}[]) {
  if (entry.level === clean.level) continue;
  console.log(`\nnoise ${entry.level}: answers per kind ${JSON.stringify(entry.noisy)}`);
  for (const loss of entry.losses) console.log(`  lost ${loss.instance}: ${loss.kinds.join(", ") || "(no noise in its calls)"}`);
  const total = entry.losses.length;
  if (total > 0)
    console.log(
      `  share of the losses: ${Object.entries(entry.share)
        .map(([kind, n]) => `${kind} ${((100 * n) / total).toFixed(0)} %`)
        .join(", ")}`,
    );
}
fs.writeFileSync(path.join(values.out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
console.log(`\n${path.join(values.out, "report.json")}`);
