import { submitReviseJob } from "../../jobs/kinds/revise/submit.js";
import { cleanText } from "../../lib/clean-text.js";
import { admitTrigger } from "../admit-trigger.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** The guidance of a `/magis revise` comment (everything after the command, all lines), or null when the comment is not one. */
export function parseReviseCommand(body: string): { guidance: string } | null {
  const match = /^\/magis\s+revise(?:[ \t]+|\n|$)([\s\S]*)$/i.exec(cleanText(body));
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}

/**
 * `issue_comment.created`: `/magis revise [guidance]` on an open pull request the app opened, by someone allowed, queues a
 * revision: of the guidance, or without guidance of the latest review again. The checks run in the order of every
 * trigger: the config, then the sender's permission, then the pull request itself.
 */
export function onReviseComment({ queue, bot, refusals }: RuleServices): TriggerRule<"issue_comment.created"> {
  return {
    event: "issue_comment.created",
    wants: (payload) => payload.issue.state === "open" && Boolean(payload.issue.pull_request) && parseReviseCommand(payload.comment.body) !== null,
    decide: async (context) => {
      const { issue, comment, sender } = context.payload;
      const guidance = parseReviseCommand(comment.body)?.guidance ?? "";
      const admitted = await admitTrigger(context, { number: issue.number, refusal: { answer: "/magis revise" }, refusals });
      if (!admitted.ok) return admitted.decision;
      const { config } = admitted;
      const { data: pull } = await context.octokit.rest.pulls.get(context.repo({ pull_number: issue.number }));
      const ownPull =
        pull.user?.login === (await bot()).login && pull.head.ref.startsWith(config.branch_prefix) && pull.head.repo?.full_name === pull.base.repo.full_name;
      if (!ownPull) {
        await context.octokit.rest.issues.createComment(
          context.issue({
            body: `@${sender.login} \`/magis revise\` works on pull requests MAGIS opened from its \`${config.branch_prefix}…\` branches only.`,
          }),
        );
        return { outcome: "declined", detail: "the pull request is not one the app opened from its branches" };
      }
      return submitReviseJob(context, queue, {
        pullNumber: issue.number,
        headRef: pull.head.ref,
        payload: {
          config,
          trigger: `@${sender.login} commented \`/magis revise\`${guidance ? " with guidance" : ""}`,
          reviewBody: "",
          guidance,
          commentId: comment.id,
          reviewer: sender.login,
          triggeredAt: comment.created_at,
        },
      });
    },
  };
}
