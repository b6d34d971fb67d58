// Evolution-memory benchmark (MAGIS Algorithm 1) with the scripted model: how many summary calls and
// tokens the Custodian spends on a first run, on a second run over the unchanged repository, and after
// two of the candidate files changed.
//
//   npm run bench:memory [-- --repo DIR] [--top K]
//
// DIR defaults to a copy of this project's own src/ (real TypeScript). The repository is copied to a
// temporary folder, so the change step never touches DIR.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../src/config.js";
import { createLlm } from "../src/llm/client.js";
import { locateFiles } from "../src/pipeline/index.js";
import type { IssueText } from "../src/pipeline/types.js";
import { openSqliteStore } from "../src/backends/sqlite/sqlite-store.js";
import { startScriptedModel } from "../test/support/scripted-model.js";
import { modelSettings } from "../test/support/model-settings.js";
import { judgeFiles } from "../test/support/judge-files.js";

const { values } = parseArgs({
  options: {
    repo: { type: "string", default: path.resolve(import.meta.dirname, "..", "src") },
    top: { type: "string", default: "10" },
  },
});

const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-memory-"));
const repo = path.join(work, "repo");
fs.cpSync(values.repo, repo, { recursive: true, filter: (src) => !src.split(path.sep).includes(".git") });
const store = openSqliteStore(path.join(work, "magis.db"));
await store.migrate();
const memory = store.memory;
const config = parseConfig({});
const issue: IssueText = {
  title: "Token budget is exceeded silently when the model retries",
  body: "When the server answers 429 and the client retries, the tokens of the failed attempt are not counted against `token_budget`, so a job can spend more than its budget. The usage report also shows fewer calls than were made.",
  hints: [],
};

const model = await startScriptedModel();
const pathOf = (content: string) => /`([^`]+)`/.exec(content)?.[1] ?? "?";
model.script("custodian-summarize-file", (r) => ({
  summary: `${pathOf(r.messages[1]!.content)} defines the functions and types its name suggests. ${"It validates its inputs, reports failures with the agent and the prompt, and keeps usage figures. ".repeat(4)}`,
}));
model.script("custodian-summarize-diff", (r) => ({ message: `Adds a note to ${pathOf(r.messages[1]!.content)}.` }));
model.script("custodian-judge-relevance", (r) => judgeFiles(r, (file) => /llm|usage|budget/.test(file)));

async function run(label: string) {
  const before = model.requests.length;
  const llm = createLlm({ config, settings: modelSettings(), baseURL: model.url, apiKey: "bench", maxRetries: 0 });
  const ctx = { root: repo, repoId: "bench/memory", config, llm, now: () => Date.now(), onProgress: () => {} };
  const located = await locateFiles(ctx, issue, memory, { top: Number(values.top) });
  const requests = model.requests.slice(before);
  const count = (prompt: string) => requests.filter((r) => r.prompt === prompt).length;
  const stats = llm.stats();
  const row = {
    label,
    fileSummaries: count("custodian-summarize-file"),
    diffSummaries: count("custodian-summarize-diff"),
    judgements: count("custodian-judge-relevance"),
    tokens: stats.totalTokens,
  };
  console.log(
    `${label.padEnd(26)} file summaries ${String(row.fileSummaries).padStart(3)}  diff summaries ${String(row.diffSummaries).padStart(3)}  judgements ${String(row.judgements).padStart(3)}  tokens ${String(row.tokens).padStart(7)}`,
  );
  return { row, located };
}

const first = await run("1. first run");
const second = await run("2. unchanged repository");
const changed = first.located.slice(0, 2).map((f) => f.path);
// A new function: a change the outline of a long file shows too (a comment at the end would leave its summary standing).
for (const file of changed)
  fs.appendFileSync(path.join(repo, file), '\nexport function maintenanceNote(): string {\n  return "keep this file\'s public names stable";\n}\n');
const third = await run(`3. after changing 2 files`);
console.log(`changed: ${changed.join(", ")}`);

await model.close();
await store.close();
fs.rmSync(work, { recursive: true, force: true });

const ok = second.row.fileSummaries === 0 && second.row.diffSummaries === 0 && third.row.diffSummaries === 2 && third.row.fileSummaries === 0;
const saved = first.row.tokens > 0 ? (100 * (1 - second.row.tokens / first.row.tokens)).toFixed(0) : "0";
console.log(`second run spent ${saved}% fewer tokens than the first (only the relevance judgements remain).`);
console.log(
  ok
    ? "PASS: 0 summary calls on the unchanged repository, exactly 2 diff summaries after 2 changes"
    : "FAIL: the memory did not behave as MAGIS Algorithm 1 expects",
);
process.exitCode = ok ? 0 : 1;
