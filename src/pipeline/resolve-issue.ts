import type { EvolutionMemory } from "../store/memory.js";
import { runCodingTasks } from "./code/index.js";
import { StageError, type StageName } from "./errors.js";
import { locateFiles } from "./locate/locate-files.js";
import { defineTasks } from "./plan/define-tasks.js";
import { designDevelopers } from "./plan/design-developers.js";
import { holdKickoffMeeting } from "./plan/hold-kickoff-meeting.js";
import { makePlan } from "./plan/make-plan.js";
import { refineRoles } from "./plan/refine-roles.js";
import { countUsage } from "./report/count-usage.js";
import type { IssueText, ResolveResult, StageContext, TaskOutcome } from "./types.js";

/**
 * Resolves one issue on a local checkout, as MAGIS does:
 *  1. the Repository Custodian locates the files (Algorithm 1);
 *  2. the Manager defines a task per file and 3. recruits a Developer per task;
 *  4. the Manager holds the kick-off meeting; 5. the Developers refine their roles;
 *  6. the Manager makes the plan (Algorithm 2);
 *  7. Developers and QA Engineers run the coding tasks per the plan (Algorithm 3);
 *  8. the kept diffs merge into the repository-level change.
 * Throws a StageError when there is no patch. The checkout is only read.
 */
export async function resolveIssue(ctx: StageContext, issue: IssueText, memory: EvolutionMemory | null): Promise<ResolveResult> {
  const started = ctx.now();
  const usage = countUsage(ctx.llm, ctx.config);
  ctx = { ...ctx, llm: usage.llm };

  const located = await inStage("locate", () => locateFiles(ctx, issue, memory));
  const defined = await inStage("plan", () => defineTasks(ctx, issue, located));
  const tasks = defined.tasks;
  if (tasks.length === 0) throw noTasks(defined.located.filter((f) => f.reason?.startsWith("Manager:")).length);
  ctx.onProgress({ stage: "tasks", tasks });
  const team = await inStage("plan", () => designDevelopers(ctx, issue, tasks));
  ctx.onProgress({ stage: "team", developers: team });
  const transcript = await inStage("kickoff", () => holdKickoffMeeting(ctx, issue, tasks, team));
  ctx.onProgress({ stage: "kickoff", transcript });
  const developers = await inStage("kickoff", () => refineRoles(ctx, issue, tasks, team, transcript));
  const plan = await inStage("plan", () => makePlan(ctx, issue, tasks, transcript));
  ctx.onProgress({ stage: "plan", plan });
  const outcomes = await inStage("code", () => runCodingTasks(ctx, issue, tasks, developers, plan));

  const ordered = plan.steps.flat().map((path) => outcomes.find((o) => o.path === path)!);
  const kept = ordered.filter((o) => o.kept && o.diff !== "");
  if (kept.length === 0) throw nothingKept(ordered);
  const result: ResolveResult = {
    patch: kept.map((o) => o.diff).join(""),
    changes: kept.map((o) => ({ path: o.path, before: o.before, after: o.after })),
    located: defined.located,
    tasks,
    developers,
    transcript,
    plan,
    outcomes: ordered,
    usage: { calls: 0, byAgent: usage.byAgent(), wallMs: ctx.now() - started },
  };
  result.usage.calls = Object.values(result.usage.byAgent).reduce((sum, a) => sum + a.calls, 0);
  ctx.onProgress({ stage: "done", result });
  return result;
}

/** Runs one stage, naming it in any failure that is not already a StageError. */
async function inStage<T>(stage: StageName, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new StageError(stage, message, "Fix what the message names (model settings, token_budget, the file), then run again.");
  }
}

function noTasks(droppedByManager: number): StageError {
  return new StageError(
    "plan",
    droppedByManager > 0
      ? `The Manager found that none of the ${droppedByManager} located file(s) needs a change for this issue, so there is nothing to code.`
      : "None of the located files can be changed (protected, missing or too large), so there is nothing to code.",
    "Name the file to change, or describe the expected behaviour more precisely, as a hint (`/magis retry <guidance>` or --hints-file), then run again.",
  );
}

function nothingKept(outcomes: TaskOutcome[]): StageError {
  const reasons = outcomes.map((o) => `${o.path}: ${describeFailure(o)}`).join("; ");
  return new StageError(
    "code",
    `Every coding task failed, so there is no patch (${reasons}).`,
    "Run again with guidance (`/magis retry <guidance>` or --hints-file), raise qa_iterations, or set keep_unapproved: true in .github/magis.yml to keep changes the QA Engineer did not approve.",
  );
}

function describeFailure(outcome: TaskOutcome): string {
  const last = outcome.attempts[outcome.attempts.length - 1];
  const count = `${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? "" : "s"}`;
  if (!last) return "no attempt was made";
  if (last.error) return `${count}, the last refused: ${last.error}`;
  return `${count}, not approved by QA (last comment: ${last.review?.comment ?? "none"})`;
}
