import { submitResolveJob } from "../../jobs/kinds/resolve/submit.js";
import { findWaitingJob } from "../../jobs/steer-job.js";
import { jobKey } from "../../store/jobs.js";
import { admitTrigger } from "../admit-trigger.js";
import { firstLineCommand } from "./first-line-command.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** The guidance of a `/magis retry` comment (the rest of its first line), or null when the comment is not one. */
export function parseRetryCommand(body: string): { guidance: string } | null {
  return firstLineCommand(body, "retry");
}

/**
 * `issue_comment.created`: `/magis retry [guidance]` on an open issue, by someone allowed, queues a new run. A run that
 * waits for its plan's approval is cancelled for it: the retry plans again, and runs once that one has stopped.
 */
export function onRetryComment({ queue, refusals, steering }: RuleServices): TriggerRule<"issue_comment.created"> {
  return {
    event: "issue_comment.created",
    wants: (payload) => payload.issue.state === "open" && !payload.issue.pull_request && parseRetryCommand(payload.comment.body) !== null,
    decide: async (context) => {
      const { issue, comment, sender } = context.payload;
      const guidance = parseRetryCommand(comment.body)?.guidance ?? "";
      // A command is addressed to the bot, so a refusal is answered; a label or a review by the same person is not.
      const admitted = await admitTrigger(context, { number: issue.number, refusal: { answer: "/magis retry" }, refusals });
      if (!admitted.ok) return admitted.decision;
      const { owner, repo } = context.repo();
      const key = jobKey(owner, repo, issue.number);
      const waiting = steering ? await findWaitingJob(steering.sessions, steering.jobs, key) : null;
      if (waiting) await queue.cancel(key, `@${sender.login} commented \`/magis retry\` to plan again`, "resolve-issue");
      return submitResolveJob(context, queue, {
        ...(waiting && { whenBusy: "wait" as const }),
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
