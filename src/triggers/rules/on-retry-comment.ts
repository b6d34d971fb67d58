import { submitResolveJob } from "../../jobs/kinds/resolve/submit.js";
import { cleanText } from "../../lib/clean-text.js";
import { admitTrigger } from "../admit-trigger.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** The guidance of a `/magis retry` comment (the rest of its first line), or null when the comment is not one. */
export function parseRetryCommand(body: string): { guidance: string } | null {
  const firstLine = cleanText(body).split("\n")[0] ?? "";
  const match = /^\/magis\s+retry(?:\s+(.*))?$/i.exec(firstLine.trim());
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}

/** `issue_comment.created`: `/magis retry [guidance]` on an open issue, by someone allowed, queues a new run. */
export function onRetryComment({ queue, refusals }: RuleServices): TriggerRule<"issue_comment.created"> {
  return {
    event: "issue_comment.created",
    wants: (payload) => payload.issue.state === "open" && !payload.issue.pull_request && parseRetryCommand(payload.comment.body) !== null,
    decide: async (context) => {
      const { issue, comment, sender } = context.payload;
      const guidance = parseRetryCommand(comment.body)?.guidance ?? "";
      // A command is addressed to the bot, so a refusal is answered; a label or a review by the same person is not.
      const admitted = await admitTrigger(context, { number: issue.number, refusal: { answer: "/magis retry" }, refusals });
      if (!admitted.ok) return admitted.decision;
      return submitResolveJob(context, queue, {
        issueNumber: issue.number,
        config: admitted.config,
        trigger: `@${sender.login} commented \`/magis retry\`${guidance ? " with guidance" : ""}`,
        guidance,
        commentId: comment.id,
        triggeredAt: comment.created_at,
      });
    },
  };
}
