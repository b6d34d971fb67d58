import { describeVerdictForModel } from "../tests/describe-test-verdict.js";
import type { ChangedFile, TestBench } from "../tests/open-test-bench.js";
import type { Attempt, DeveloperRole, FileTask, ShownIssue, StageContext, TaskOutcome } from "../types.js";
import { namesIn, outlineFile } from "../../edit/syntax/outline-file.js";
import { designQaRole } from "./design-qa-role.js";
import { describeCallersForTask } from "./find-callers.js";
import { proposeChange } from "./propose-change.js";
import { openEditableFile } from "../open-editable-file.js";
import { reviewChange } from "./review-change.js";
import { describeReproductionForModel, describeRun, type ReproductionBench } from "../tests/run-reproduction.js";

/** One file-level task as the coding stage runs it. */
export interface CodingTaskInput {
  issue: ShownIssue;
  task: FileTask;
  developer: DeveloperRole;
  /** Diffs of the tasks of earlier plan steps, or a note that there are none. */
  earlierChanges: string;
  /** The same changes as files, which every attempt is tested together with. */
  earlierKept: ChangedFile[];
  /** The repository's tests, when they may run and ran on the untouched checkout. */
  tests: TestBench | null;
  /** Human review comments on this file; they are the first attempt's QA comment. */
  humanFeedback?: string;
  /** The reproduction of the issue on the dynamic way, and whether this task's change must make it pass (see runCodingTasks). */
  reproduction?: { bench: ReproductionBench; decisive: boolean } | null;
}

const NO_REPRODUCTION = "(none: the issue was not reproduced; work from the issue and the code)";

/**
 * A Developer and its QA Engineer on one task (MAGIS Algorithm 3): up to `qa_iterations` attempts,
 * each refused edit or QA comment fed into the next, until QA approves. With tests, each change is
 * tested before review and QA sees the result (MarsCode's dynamic validation). The file is read from
 * the checkout and changed in memory only.
 */
export async function runCodingTask(ctx: StageContext, input: CodingTaskInput): Promise<TaskOutcome> {
  const { task, developer } = input;
  const opened = openEditableFile(ctx, task.path);
  if (!opened.ok) {
    const attempt: Attempt = { number: 1, error: opened.error };
    ctx.onProgress({ stage: "attempt", path: task.path, attempt });
    return { path: task.path, developer, qaRole: "", attempts: [attempt], approved: false, kept: false, diff: "", before: "", after: "", encoding: "utf-8" };
  }
  const { text: before, encoding } = opened;
  const qaRole = await designQaRole(ctx, input.issue, task, developer);
  // A long file's outline keeps what the issue and the task name.
  const outline = await outlineFile(before, task.path, { names: namesIn(input.issue.title, input.issue.body, ...input.issue.hints, task.description) });
  const callers = await describeCallersForTask(ctx, task.path, before, [input.issue.title, input.issue.body, task.description]);
  const attempts: Attempt[] = [];
  let feedback = input.humanFeedback ? `A human reviewer commented on this file:\n${input.humanFeedback}` : "(none: this is your first attempt)";
  let last: { after: string; diff: string } | null = null;
  let approved = false;
  const reproduction = input.reproduction ?? null;
  const reproductionText = reproduction ? describeReproductionForModel(reproduction.bench) : NO_REPRODUCTION;

  for (let number = 1; number <= ctx.config.qa_iterations && !approved; number++) {
    const result = await proposeChange(
      ctx,
      {
        issue: input.issue,
        task,
        developer,
        before,
        encoding,
        earlierChanges: input.earlierChanges,
        earlierKept: input.earlierKept,
        feedback,
        outline,
        reproduction: reproductionText,
        callers,
      },
      { path: task.path, encoding, earlierKept: input.earlierKept, tests: input.tests, reproduction: reproduction?.bench ?? null },
    );
    const candidates = result.candidates ? { candidates: result.candidates } : {};
    let attempt: Attempt;
    if (!result.ok) {
      attempt = { number, error: result.error, ...candidates };
      feedback = `Your attempt ${number} was refused: ${result.error}. Start again from the file as shown; nothing of that attempt was applied.`;
    } else {
      const { tests, reproduced } = result;
      const judged = tests ? { command: input.tests!.command, before: input.tests!.before, verdict: tests } : undefined;
      const review = await reviewChange(ctx, {
        issue: input.issue,
        task,
        developer,
        qaRole,
        diff: result.diff,
        callers: result.callers,
        tests: judged,
        ...(reproduced ? { reproduction: { description: reproductionText, run: reproduced, decisive: reproduction!.decisive } } : {}),
      });
      attempt = {
        number,
        diff: result.diff,
        ...(tests ? { tests } : {}),
        ...(reproduced ? { reproduction: reproduced, ...(reproduction!.decisive ? {} : { reproductionAdvisory: true as const }) } : {}),
        ...(result.checkSkipped ? { checkSkipped: result.checkSkipped } : {}),
        review,
        ...candidates,
      };
      last = result;
      approved = review.approved;
      feedback = [
        `Your attempt ${number} changed the file like this:`,
        "```diff",
        result.diff.trimEnd(),
        "```",
        `The QA Engineer did not approve it: ${review.comment}`,
        ...(judged ? ["", describeVerdictForModel(judged.command, judged.before, judged.verdict), ""] : []),
        ...(reproduced ? ["", `With that change, the reproduction ${describeRun(reproduced)}`, ""] : []),
        "Start again from the file as shown (that change is not applied) and address the comment.",
      ].join("\n");
    }
    attempts.push(attempt);
    ctx.onProgress({ stage: "attempt", path: task.path, attempt });
  }

  const kept = last !== null && (approved || ctx.config.keep_unapproved);
  return {
    path: task.path,
    developer,
    qaRole,
    attempts,
    approved,
    kept,
    diff: kept ? last!.diff : "",
    before,
    after: kept ? last!.after : before,
    encoding,
  };
}
