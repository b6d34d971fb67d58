import { postIssueComment } from "../../github/publish/post-issue-comment.js";
import { readPullRequest } from "../../github/read/read-pull-request.js";
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
      const where = { ...context.repo(), number: issue.number };
      const pull = await readPullRequest(context.octokit, where);
      const ownPull = pull.author === (await bot()).login && pull.head.ref.startsWith(config.branch_prefix) && pull.head.repo === pull.baseRepo;
      if (!ownPull) {
        await postIssueComment(
          context.octokit,
          where,
          `@${sender.login} \`/magis revise\` works on pull requests MAGIS opened from its \`${config.branch_prefix}…\` branches only.`,
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
