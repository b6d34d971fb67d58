import type { Context } from "probot";
import { parseConfig } from "../config.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { hasPermission } from "./check-permission.js";
import { cleanText } from "./clean-text.js";
import { loadConfig, renderConfigProblems } from "./load-config.js";
import { submitReviseJob } from "./submit-revise-job.js";
import type { BotIdentity, Octokit } from "./types.js";

const DEFAULT_PERMISSIONS = parseConfig({}).allowed_permissions;

/**
 * `pull_request_review.submitted`: a review that requests changes, or comments with text or inline comments, on an
 * open pull request the app opened from one of its branches, by someone allowed, queues a revision. Approvals,
 * bots (the app included), other pull requests and other people are ignored without a word.
 */
export function onPullRequestReview(queue: JobQueue, bot: (octokit: Octokit) => Promise<BotIdentity>) {
  return async (context: Context<"pull_request_review.submitted">): Promise<void> => {
    const { review, pull_request: pull, repository, sender, installation } = context.payload;
    if (context.isBot || !installation) return;
    const state = review.state.toLowerCase();
    if (state !== "changes_requested" && state !== "commented") return;
    if (pull.state !== "open" || pull.user?.type !== "Bot" || pull.head.repo?.full_name !== repository.full_name) return;
    if (pull.user.login !== (await bot(context.octokit)).login) return;
    const loaded = await loadConfig(context);
    if (!loaded.ok) {
      // A broken config has no permission list to trust; the default one decides who hears about the problems.
      if (await hasPermission(context.octokit, context.repo(), sender.login, DEFAULT_PERMISSIONS)) {
        await context.octokit.rest.issues.createComment(context.issue({ issue_number: pull.number, body: renderConfigProblems(loaded.error) }));
      }
      return;
    }
    const { config } = loaded;
    if (!pull.head.ref.startsWith(config.branch_prefix)) return;
    if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
      context.log.info({ sender: sender.login }, "review by someone without the allowed permissions; ignored");
      return;
    }
    const reviewBody = cleanText(review.body ?? "");
    if (state === "commented" && reviewBody === "" && !(await hasInlineComments(context, pull.number, review.id))) return;
    await submitReviseJob(context, queue, {
      pullNumber: pull.number,
      headRef: pull.head.ref,
      payload: {
        config,
        trigger: `@${sender.login} ${state === "changes_requested" ? "requested changes" : "commented"} in a review`,
        reviewId: review.id,
        reviewBody,
        guidance: "",
        reviewer: sender.login,
      },
    });
  };
}

// A "commented" review with no text is only feedback if it carries inline comments (a lone thread reply is one too).
async function hasInlineComments(context: Context<"pull_request_review.submitted">, pullNumber: number, reviewId: number): Promise<boolean> {
  const { data } = await context.octokit.rest.pulls.listCommentsForReview(context.repo({ pull_number: pullNumber, review_id: reviewId, per_page: 1 }));
  return data.length > 0;
}
