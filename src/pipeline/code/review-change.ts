import { z } from "zod";
import { describeRun } from "../tests/run-reproduction.js";
import { describeExit } from "../tests/describe-test-verdict.js";
import { describeTestsForReview } from "./describe-tests-for-review.js";
import type { DeveloperRole, FileTask, Review, ShownIssue, StageContext, TestRun, TestVerdict } from "../types.js";

/** The answer its prompt asks for (the prompt's examples are checked against it); the reasoning comes before the verdict. */
export const answerSchema = z.object({
  comment: z.string(),
  approved: z.boolean(),
});

const NO_REPRODUCTION = "The issue was not reproduced (the static way): judge the change by the issue and the code.";

const NO_TESTS = "The repository's tests were not run for this change (no `test_command` is set, or code may not run here): judge it by reading.";

/**
 * The QA Engineer's verdict on one diff (MAGIS Algorithm 3, lines 15–16): approve, or a comment for the next attempt.
 * With `tests`, the QA Engineer reads their result, and an approval of a change that breaks passing tests is turned
 * into a refusal that says so: the tests outrank an opinion.
 */
export async function reviewChange(
  ctx: StageContext,
  input: {
    issue: ShownIssue;
    task: FileTask;
    developer: DeveloperRole;
    qaRole: string;
    diff: string;
    /** The uses of the definitions the change alters, and which it did not update (see describeCallersOfChange). */
    callers: string;
    tests?: { command: string; before: TestRun; verdict: TestVerdict };
    /** The reproduction's run with the change; `decisive` when the change must make it pass to be approved. */
    reproduction?: { description: string; run: TestRun; decisive: boolean };
  },
): Promise<Review> {
  const { tests, reproduction } = input;
  const { value } = await ctx.llm.ask({
    agent: "qa",
    prompt: "qa-review",
    vars: {
      qa_role: input.qaRole,
      issue: input.issue.shown,
      path: input.task.path,
      task: input.task.description,
      developer: input.developer.name,
      diff: input.diff,
      callers: input.callers,
      tests: tests ? describeTestsForReview(tests) : NO_TESTS,
      reproduction: reproduction ? describeReproductionVerdict(reproduction) : NO_REPRODUCTION,
    },
    schema: answerSchema,
  });
  const comment = value.comment.trim() || (value.approved ? "Approved." : "Not approved, without a comment.");
  const breaks = tests?.verdict.breaks;
  if (value.approved && breaks) {
    return { approved: false, comment: `Not approved because the tests say no: ${breaks}. (The QA Engineer had approved it: "${comment}")` };
  }
  if (value.approved && reproduction?.decisive && reproduction.run.outcome !== "passed") {
    return {
      approved: false,
      comment: `Not approved because the reproduction still fails with this change: it ${describeExit(reproduction.run)}. (The QA Engineer had approved it: "${comment}")`,
    };
  }
  return { approved: value.approved, comment };
}

/** The reproduction and its run with the change, as the QA Engineer reads them. */
function describeReproductionVerdict(reproduction: { description: string; run: TestRun; decisive: boolean }): string {
  const fixed = reproduction.run.outcome === "passed";
  const scope = reproduction.decisive
    ? "This change completes the whole change, so it is approved only when the reproduction passes."
    : "Other tasks change other files at the same time, so the reproduction may pass only with all of them.";
  return [
    reproduction.description,
    "",
    `With this change (and the kept changes of earlier plan steps) it ${describeRun(reproduction.run)}`,
    "",
    `${fixed ? "The issue no longer shows." : "The issue still shows."} ${scope}`,
  ].join("\n");
}
