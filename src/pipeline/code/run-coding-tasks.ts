import { StageError } from "../errors.js";
import { mapBounded } from "../../lib/map-bounded.js";
import { validatePlan } from "../validate-plan.js";
import type { TestBench } from "../tests/open-test-bench.js";
import type { DeveloperRole, FileFeedback, FileTask, Plan, ShownIssue, StageContext, TaskOutcome } from "../types.js";
import { runCodingTask } from "./run-coding-task.js";
import type { ReproductionBench } from "../tests/run-reproduction.js";

/** The coding stage's work besides the issue: the tasks and their Developers, the plan's order, and what judges each attempt. */
export interface CodingWork {
  tasks: FileTask[];
  /** One Developer per task. */
  developers: DeveloperRole[];
  /** The order of the tasks: steps one after another, the tasks of a step at once. */
  plan: Plan;
  /** A human review's comments (for revisions), each the first QA comment of its file's task (default none). */
  feedback?: FileFeedback[];
  /** The bench every attempt is tested on, with the earlier steps' kept changes (default null: untested). */
  tests?: TestBench | null;
  /** The reproduction every attempt is run against, on the dynamic way (default null: the static way). */
  reproduction?: ReproductionBench | null;
}

/**
 * Runs the tasks in plan order (MAGIS Algorithm 3 under the main plan): steps one after another,
 * the tasks of one step concurrently (at most `concurrency` at once), each later step seeing the
 * kept diffs of the earlier ones. `feedback` (a human review, for revisions) becomes the first QA
 * comment of its file's task. With `tests`, every attempt is tested together with the earlier steps'
 * kept changes. Returns the outcomes in the order the tasks finished.
 */
export async function runCodingTasks(ctx: StageContext, issue: ShownIssue, work: CodingWork): Promise<TaskOutcome[]> {
  const { tasks, developers, plan, feedback = [], tests = null, reproduction = null } = work;
  const check = validatePlan(
    plan.steps,
    tasks.map((t) => t.path),
  );
  if (!check.ok) {
    throw new StageError("code", `The plan does not fit the tasks: ${check.problems.join("; ")}.`, "Report this as a bug in MAGIS; then run again.");
  }
  const outcomes: TaskOutcome[] = [];
  for (const [index, step] of check.steps.entries()) {
    // A task alone in the last step completes the change with the earlier steps' kept ones: its attempt must make the
    // reproduction pass. Tasks that run beside others may each need the others, so for them the run is advice to QA.
    const decisive = index === check.steps.length - 1 && step.length === 1;
    const earlierChanges = describeEarlierChanges(outcomes);
    const earlierKept = outcomes.filter((o) => o.kept && o.diff !== "").map(({ path, after, encoding }) => ({ path, after, encoding }));
    // A task that fails (the model, the budget) stops the step: no further task starts, and the stage fails only
    // once the running ones have ended, so none goes on calling the model after the job has failed.
    await mapBounded(step, ctx.config.concurrency, async (path) => {
      const developer = developers.find((d) => d.path === path);
      if (!developer) throw new StageError("code", `No Developer owns the task on '${path}'.`, "Report this as a bug in MAGIS; then run again.");
      const task = tasks.find((t) => t.path === path)!;
      const outcome = await runCodingTask(ctx, {
        issue,
        task,
        developer,
        earlierChanges,
        earlierKept,
        tests,
        humanFeedback: formatFeedback(feedback, path),
        reproduction: reproduction ? { bench: reproduction, decisive } : null,
      });
      outcomes.push(outcome);
      ctx.onProgress({ stage: "task-done", outcome });
    });
  }
  return outcomes;
}

function describeEarlierChanges(outcomes: TaskOutcome[]): string {
  const diffs = outcomes.filter((o) => o.kept && o.diff !== "").map((o) => o.diff.trimEnd());
  return diffs.length === 0 ? "(none yet)" : ["```diff", ...diffs, "```"].join("\n");
}

function formatFeedback(feedback: FileFeedback[], path: string): string | undefined {
  const comments = feedback.filter((f) => f.path === path).flatMap((f) => f.comments);
  if (comments.length === 0) return undefined;
  return comments
    .map((c) => {
      const where = c.startLine && c.line ? `lines ${c.startLine}-${c.line}` : c.line ? `line ${c.line}` : "the file";
      const hunk = c.diffHunk ? `\n  on:\n  \`\`\`diff\n  ${c.diffHunk.trimEnd().replace(/\n/g, "\n  ")}\n  \`\`\`` : "";
      return `- On ${where}: ${c.body.trim()}${hunk}`;
    })
    .join("\n");
}
