import { onCiCompleted } from "./rules/on-ci-completed.js";
import { onGoComment } from "./rules/on-go-comment.js";
import { onIssueLabeled } from "./rules/on-issue-labeled.js";
import { onIssueWithdrawn } from "./rules/on-issue-withdrawn.js";
import { onPullRequestReview } from "./rules/on-pull-request-review.js";
import { onRetryComment } from "./rules/on-retry-comment.js";
import { onReviseComment } from "./rules/on-revise-comment.js";
import type { RuleServices, TriggerRule } from "./trigger-rule.js";

/**
 * Every trigger of the app, the same in each door: a label, `/magis retry`, `/magis go`, `/magis revise`, a review, CI
 * failing on the bot's pull request, and what withdraws a run.
 */
export function triggerRules(services: RuleServices): TriggerRule[] {
  return [
    onIssueLabeled(services),
    onRetryComment(services),
    onGoComment(services),
    onReviseComment(services),
    onPullRequestReview(services),
    ...onCiCompleted(services),
    ...onIssueWithdrawn(services),
  ];
}
