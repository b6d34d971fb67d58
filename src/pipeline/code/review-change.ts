import { z } from "zod";
import { formatIssue } from "../format-issue.js";
import { describeVerdictForModel } from "../tests/describe-test-verdict.js";
import type { DeveloperRole, FileTask, IssueText, Review, StageContext, TestRun, TestVerdict } from "../types.js";

/** The answer its prompt asks for (the prompt's example is checked against it). */
export const answerSchema = z.object({
  approved: z.boolean(),
  comment: z.string(),
});

const NO_TESTS = "The repository's tests were not run for this change (no `test_command` is set, or code may not run here): judge it by reading.";

/**
 * The QA Engineer's verdict on one diff (MAGIS Algorithm 3, lines 15–16): approve, or a comment for the next attempt.
 * With `tests`, the QA Engineer reads their result, and an approval of a change that breaks passing tests is turned
 * into a refusal that says so: the tests outrank an opinion.
 */
export async function reviewChange(
  ctx: StageContext,
  input: {
    issue: IssueText;
    task: FileTask;
    developer: DeveloperRole;
    qaRole: string;
    diff: string;
    tests?: { command: string; before: TestRun; verdict: TestVerdict };
  },
): Promise<Review> {
  const { tests } = input;
  const { value } = await ctx.llm.ask({
    agent: "qa",
    prompt: "qa-review",
    vars: {
      qa_role: input.qaRole,
      issue: formatIssue(input.issue),
      path: input.task.path,
      task: input.task.description,
      developer: input.developer.name,
      diff: input.diff,
      tests: tests ? describeVerdictForModel(tests.command, tests.before, tests.verdict) : NO_TESTS,
    },
    schema: answerSchema,
  });
  const comment = value.comment.trim() || (value.approved ? "Approved." : "Not approved, without a comment.");
  const breaks = tests?.verdict.breaks;
  if (value.approved && breaks) {
    return { approved: false, comment: `Not approved because the tests say no: ${breaks}. (The QA Engineer had approved it: "${comment}")` };
  }
  return { approved: value.approved, comment };
}
