// npm run bench:plan — does the plan's concurrency pay? Three independent single-file tasks run by
// the coding stage against the scripted model at 200 ms per call: once as one plan step (concurrent),
// once as three steps (sequential). Prints both wall times and their ratio.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config.js";
import { createLlm } from "../src/llm/client.js";
import { runCodingTasks } from "../src/pipeline/code/index.js";
import { showIssue } from "../src/pipeline/format-issue.js";
import type { DeveloperRole, FileTask, Plan } from "../src/pipeline/types.js";
import { startScriptedModel, type ScriptedRequest } from "../test/support/scripted-model.js";
import { modelSettings } from "../test/support/model-settings.js";
import { editBlockReply } from "../test/support/edit-block-answer.js";

const LATENCY_MS = 200;
const FILES = ["src/alpha.js", "src/beta.js", "src/gamma.js"];

const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-plan-"));
for (const file of FILES) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), `export function value() {\n  return 1;\n}\n`);
}
const pathOf = (r: ScriptedRequest) => /, on `([^`]+)`/.exec(r.messages.map((m) => m.content).join("\n"))?.[1] ?? "";
const model = await startScriptedModel({ latencyMs: LATENCY_MS });
model
  .script("developer-design-qa", () => ({ role: "You check the returned value." }))
  .script("developer-locate-lines", (r) => ({ path: pathOf(r), ranges: [{ start: 2, end: 2, why: "the value" }] }))
  .script("developer-write-code", () => editBlockReply("  return 1;", "  return 2;"))
  .script("qa-review", () => ({ approved: true, comment: "Right value." }));

const config = parseConfig({ concurrency: 3 });
const issue = showIssue({ title: "value() must return 2", body: "", hints: [] });
const tasks: FileTask[] = FILES.map((p) => ({ path: p, description: "return 2" }));
const developers: DeveloperRole[] = FILES.map((p, i) => ({ name: `Developer ${i + 1}`, path: p, role: "You change one value." }));

async function timeRun(plan: Plan): Promise<{ ms: number; calls: number }> {
  const llm = createLlm({ config, settings: modelSettings({ OPENAI_BASE_URL: model.url }), maxRetries: 0 });
  const started = performance.now();
  const outcomes = await runCodingTasks({ root, repoId: root, config, llm, now: Date.now, onProgress: () => {} }, issue, { tasks, developers, plan });
  if (!outcomes.every((o) => o.approved)) throw new Error("bench: a task was not approved; the script is out of date");
  return { ms: performance.now() - started, calls: llm.stats().calls };
}

const sequential = await timeRun({ steps: FILES.map((p) => [p]), rationale: "one after another" });
const concurrent = await timeRun({ steps: [FILES], rationale: "independent" });
await model.close();
fs.rmSync(root, { recursive: true, force: true });

console.log(`plan concurrency: 3 independent single-file tasks, scripted model at ${LATENCY_MS} ms per call, concurrency 3`);
console.log(`  sequential plan (3 steps): ${sequential.ms.toFixed(0)} ms, ${sequential.calls} calls`);
console.log(`  concurrent plan (1 step):  ${concurrent.ms.toFixed(0)} ms, ${concurrent.calls} calls`);
console.log(`  ratio concurrent/sequential: ${(concurrent.ms / sequential.ms).toFixed(2)} (ideal 0.33)`);
