import { hasReviewComments } from "../../github/read/check-review-comments.js";
import { submitReviseJob } from "../../jobs/kinds/revise/submit.js";
import { cleanText } from "../../lib/clean-text.js";
import { admitTrigger } from "../admit-trigger.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/**
 * `pull_request_review.submitted`: a review that requests changes, or comments with text or inline comments, on an
 * open pull request the app opened from one of its branches, by someone allowed, queues a revision. Approvals,
 * bots (the app included), other pull requests and other people are passed over without a word.
 */
export function onPullRequestReview({ queue, bot, refusals }: RuleServices): TriggerRule<"pull_request_review.submitted"> {
  return {
    event: "pull_request_review.submitted",
    wants: (payload) => {
      const { review, pull_request: pull, repository } = payload;
      const state = review.state.toLowerCase();
      return (
        (state === "changes_requested" || state === "commented") &&
        pull.state === "open" &&
        pull.user?.type === "Bot" &&
        pull.head.repo?.full_name === repository.full_name
      );
    },
    decide: async (context) => {
      const { review, pull_request: pull, sender } = context.payload;
      if (pull.user?.login !== (await bot()).login) return { outcome: "ignored", detail: "the pull request was opened by another app" };
      const admitted = await admitTrigger(context, {
        number: pull.number,
        matches: (config) =>
          pull.head.ref.startsWith(config.branch_prefix)
            ? null
            : { outcome: "ignored", detail: `the branch is not one of the app's \`${config.branch_prefix}…\` branches` },
        refusals,
        refusal: { ignore: "reviewed" },
      });
      if (!admitted.ok) return admitted.decision;
      const state = review.state.toLowerCase();
      const reviewBody = cleanText(review.body ?? "");
      // A "commented" review with no text is only feedback if it carries inline comments (a lone thread reply is one too).
      if (state === "commented" && reviewBody === "" && !(await hasReviewComments(context.octokit, { ...context.repo(), number: pull.number }, review.id))) {
        return { outcome: "ignored", detail: "the review has no text and no inline comments" };
      }
      return submitReviseJob(context, queue, {
        pullNumber: pull.number,
        headRef: pull.head.ref,
        payload: {
          config: admitted.config,
          trigger: `@${sender.login} ${state === "changes_requested" ? "requested changes" : "commented"} in a review`,
          reviewId: review.id,
          reviewBody,
          guidance: "",
          reviewer: sender.login,
          triggeredAt: review.submitted_at ?? undefined,
        },
      });
    },
  };
}
