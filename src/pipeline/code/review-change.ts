import { z } from "zod";
import { formatIssue } from "../format-issue.js";
import type { DeveloperRole, FileTask, IssueText, Review, StageContext } from "../types.js";

const answerSchema = z.object({
  approved: z.boolean(),
  comment: z.string(),
});

/** The QA Engineer's verdict on one diff (MAGIS Algorithm 3, lines 15–16): approve, or a comment for the next attempt. */
export async function reviewChange(
  ctx: StageContext,
  input: { issue: IssueText; task: FileTask; developer: DeveloperRole; qaRole: string; diff: string },
): Promise<Review> {
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
    },
    schema: answerSchema,
  });
  return { approved: value.approved, comment: value.comment.trim() || (value.approved ? "Approved." : "Not approved, without a comment.") };
}
