import { runCodingTasks } from "../code/index.js";
import { mergeChanges } from "../code/merge-changes.js";
import { StageError, type StageName } from "../errors.js";
import { designDevelopers } from "../plan/design-developers.js";
import { countUsage } from "../report/count-usage.js";
import type { Plan, StageContext } from "../types.js";
import { triageFeedback } from "./triage-feedback.js";
import type { RevisionInput, RevisionResult } from "./types.js";

/**
 * Revises a pull request after a human review, as MAGIS's Developer ↔ QA loop with the reviewer as the first QA
 * Engineer. The checkout (the pull request's head) is only read. A revision that changes nothing is a result,
 * not an error: its summary says why.
 */
export async function revisePullRequest(ctx: StageContext, input: RevisionInput): Promise<RevisionResult> {
  const started = ctx.now();
  const usage = countUsage(ctx.llm, ctx.config);
  ctx = { ...ctx, llm: usage.llm };

  // 1. The Manager maps the review to file-level tasks; the reviewer's words go to the files they concern.
  const triage = await inStage("plan", () => triageFeedback(ctx, input));
  ctx.onProgress({ stage: "tasks", tasks: triage.tasks });
  // 2. One Developer per task. No kick-off meeting: the review already says what each file needs.
  const developers = triage.tasks.length > 0 ? await inStage("plan", () => designDevelopers(ctx, input.issue, triage.tasks)) : [];
  ctx.onProgress({ stage: "team", developers });
  // 3. The tasks run one after another, so each Developer sees what the earlier ones changed.
  const plan: Plan = {
    steps: triage.tasks.map((t) => [t.path]),
    rationale: "Revision tasks run one after another, each seeing the changes made before it.",
  };
  // 4. Developers and QA Engineers, with the reviewer's words as the first QA comment of each file.
  const outcomes = await inStage("code", () => runCodingTasks(ctx, input.issue, triage.tasks, developers, plan, triage.feedback));
  // 5. The kept file diffs are the revision's change.
  const merged = mergeChanges(plan, outcomes);
  return { ...merged, ...triage, developers, plan, usage: usage.report(ctx.now() - started) };
}

/** Runs one stage, naming it in any failure that is not already a StageError. */
async function inStage<T>(stage: StageName, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const next = "Fix what the message names (model settings, token_budget, the file), then comment `/magis revise` on the pull request.";
    // The cause keeps a model error's own advice for the failure comment.
    throw Object.assign(new StageError(stage, message, next), { cause: error });
  }
}
