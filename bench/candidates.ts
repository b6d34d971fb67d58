// What candidates cost: the wall time and tokens of one `magis resolve` on the mean repository (one task, a regression
// test and a reproduction run in the sandbox) with candidates = 1, 3, 5, the scripted model answering at once with
// chars/4 token counts of its real prompts and answers. The candidates cycle through three changes, two of them the
// same once normalized, so the groups, their test runs and the selection are all paid for. Each count runs against a
// server that honours the API's `n` (the candidates' answers in one request) and one that ignores it.
//
//   npm run bench:candidates -- [--runs 3] [--counts 1,3,5]
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { TraceRecord } from "../src/llm/types.js";
import { FIX, MEAN_FILES, MEAN_ISSUE, scriptMean } from "../test/integration/reproduce/script-mean.js";
import { startResolveRig } from "../test/integration/resolve/run-resolve.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, counts: { type: "string", default: "1,3,5" } } });
const runs = Number(values.runs);
const counts = values.counts.split(",").map(Number);
const FILES = {
  ...MEAN_FILES,
  "test.mjs": 'import { mean } from "./src/stats.js";\nif (mean([2, 4]) !== 3) process.exit(1);\n',
};
const FIXES = [FIX, "  return values.length===0 ? 0 : sum/values.length; // empty: 0", "  return values.length > 0 ? sum / values.length : 0;"];

interface Measure {
  wallMs: number;
  tokens: number;
  codingTokens: number;
  calls: number;
}

async function measure(count: number, ignoreN: boolean): Promise<Measure> {
  const rig = await startResolveRig({
    issue: MEAN_ISSUE,
    files: { ...FILES, ".github/magis.yml": `candidates: ${count}\ntest_command: node test.mjs\n` },
    model: { ignoreN },
  });
  try {
    scriptMean(rig.model, { fixes: FIXES });
    rig.model.script("qa-select-candidate", () => ({ change: null, reason: "Both do the task." }));
    const started = performance.now();
    const run = await rig.resolve();
    const wallMs = performance.now() - started;
    if (run.code !== 0) throw new Error(`candidates ${count}: magis resolve failed: ${run.stderr}`);
    const trace = fs
      .readFileSync(path.join(rig.out, "trace.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceRecord);
    const coding = trace.filter((t) => /^(developer-locate-lines|developer-write-code|qa-)/.test(t.prompt));
    const sum = (records: TraceRecord[]) => records.reduce((s, t) => s + t.usage.totalTokens, 0);
    // Requests, not trace records: a request asking for `n` answers leaves one record per answer.
    return { wallMs, tokens: sum(trace), codingTokens: sum(coding), calls: rig.model.requests.length };
  } finally {
    await rig.close();
  }
}

const signed = (x: number, digits: number) => `${x < 0 ? "−" : "+"}${Math.abs(x).toFixed(digits)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: { count: number; server: string; wall: number; tokens: number; coding: number; calls: number }[] = [];
for (const count of counts)
  for (const ignoreN of count === 1 ? [false] : [false, true]) {
    const measured: Measure[] = [];
    for (let run = 0; run < runs; run++) measured.push(await measure(count, ignoreN));
    rows.push({
      count,
      server: count === 1 ? "either" : ignoreN ? "ignores n" : "honours n",
      wall: median(measured.map((m) => m.wallMs)),
      tokens: median(measured.map((m) => m.tokens)),
      coding: median(measured.map((m) => m.codingTokens)),
      calls: median(measured.map((m) => m.calls)),
    });
  }
const base = rows[0]!;
console.log(`one task on the mean repository, ${runs} runs each (median), load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
console.log("| candidates | server | wall time | extra wall time | model calls | tokens | of which coding (locate-lines, write-code, QA) | extra tokens |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows)
  console.log(
    `| ${r.count} | ${r.server} | ${(r.wall / 1000).toFixed(2)} s | ${signed((r.wall - base.wall) / 1000, 2)} s | ${r.calls} | ${r.tokens.toLocaleString("en-US")} | ${r.coding.toLocaleString("en-US")} | +${(r.tokens - base.tokens).toLocaleString("en-US")} |`,
  );
