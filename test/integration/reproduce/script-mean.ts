import { custodianAnswers } from "../../../examples/script-custodian.js";
import type { ScriptedModel, ScriptedRequest } from "../../support/scripted-model.js";
import type { ScriptAnswer } from "../../../src/llm/read-script-answer.js";
import { editBlockReply } from "../../support/edit-block-answer.js";
import { scriptReply } from "../../support/script-answer.js";

/** A one-file repository with a real bug: the mean of an empty list is NaN, where the issue wants 0. */
export const MEAN_FILES = {
  "package.json": '{ "name": "stats", "version": "1.0.0", "type": "module", "private": true }\n',
  "src/stats.js": [
    "/** The arithmetic mean of a list of numbers. */",
    "export function mean(values) {",
    "  let sum = 0;",
    "  for (const value of values) sum += value;",
    "  return sum / values.length;",
    "}",
    "",
  ].join("\n"),
};

export const MEAN_ISSUE = "mean([]) returns NaN\n\n`mean([])` returns `NaN`; the mean of an empty list should be 0, as the docs say.\n";

/** A reproduction that fails while the bug is there (exit 1, naming the wrong value) and passes once it is fixed. */
export const REPRODUCTION = {
  path: "reproduce-mean.mjs",
  command: "node reproduce-mean.mjs",
  content: [
    'import { mean } from "./src/stats.js";',
    "const got = mean([]);",
    "if (got !== 0) {",
    "  console.error(`mean([]) gave ${got}, expected 0`);",
    "  process.exit(1);",
    "}",
    'console.log("mean([]) is 0");',
    "",
  ].join("\n"),
  expected: "mean([]) gave NaN, expected 0",
};

/** The Developer's attempts at line 5 (`return sum / values.length;`), by number; the last repeats. */
export const FIX = "  return values.length === 0 ? 0 : sum / values.length;";
export const NOT_A_FIX = "  return sum / Math.max(values.length, 0);";

/** What the scripted run answers besides the team's usual prompts. */
export interface MeanScript {
  way?: "dynamic" | "static";
  /** The Reproducer's scripts, in order (the last repeats). */
  scripts?: ScriptAnswer[];
  /** The Reproducer's verdicts on the runs it is asked about, in order (the last repeats); default: reproduced. */
  checks?: unknown[];
  /** The Developer's new line 5, attempt (or candidate) by attempt (the last repeats); an edit to answer as is. */
  fixes?: (string | { old: string; new: string })[];
}

/** Scripts a run on the mean repository: one task on src/stats.js, QA approving every change, the way as `script` says. */
export function scriptMean(model: ScriptedModel, script: MeanScript = {}): void {
  for (const [prompt, answer] of Object.entries(custodianAnswers((file) => file === "src/stats.js"))) model.script(prompt, answer);
  const nth = <T>(list: T[], counter: { n: number }) => list[Math.min(counter.n++, list.length - 1)]!;
  const scripts = { n: 0 };
  const checks = { n: 0 };
  const fixes = { n: 0 };
  const task = { description: "Return 0 for an empty list in `mean`.", needs_change: true };
  const way = {
    reason: "The issue shows a wrong value that a three-line script prints.",
    way: script.way ?? "dynamic",
    reproducer: { name: "Rae", role: "You show bugs in the stats module with the smallest script." },
  };
  model
    // The Manager chooses the way with the first file's task.
    .script("manager-define-task-and-way", () => ({ ...task, way }))
    .script("developer-write-reproduction", () => scriptReply(nth(script.scripts ?? [REPRODUCTION], scripts)))
    .script("developer-check-reproduction", () => nth(script.checks ?? [{ reproduced: true, reason: "It prints NaN where 0 is expected." }], checks))
    .script("manager-define-task", () => task)
    .script("manager-design-developer", () => ({ name: "Statistician", role: "You own the stats module." }))
    .script("manager-open-meeting", () => ({ speech: "Fix mean." }))
    .script("developer-speak", () => ({ speech: "I will." }))
    .script("manager-close-meeting", () => ({ speech: "Go." }))
    .script("developer-refine-role", () => ({ role: "You own the stats module." }))
    .script("developer-design-qa", () => ({ role: "You check the mean." }))
    .script("manager-make-plan", () => ({ steps: [["src/stats.js"]], rationale: "One file." }))
    .script("developer-locate-lines", () => ({ path: "src/stats.js", ranges: [{ start: 5, end: 5, why: "the division" }] }))
    .script("developer-write-code", () => {
      const fix = nth(script.fixes ?? [FIX], fixes);
      return typeof fix === "string" ? editBlockReply("  return sum / values.length;", fix) : editBlockReply(fix.old, fix.new);
    })
    .script("qa-review", () => ({ approved: true, comment: "Looks right." }));
}

/** The user message of the requests of one prompt, in order. */
export function asked(model: ScriptedModel, prompt: string): string[] {
  return model.requests.filter((r: ScriptedRequest) => r.prompt === prompt).map((r) => r.messages.at(-1)!.content);
}
