import type { ApplicationFunction } from "probot";
import { createServices, type MagisAppOptions } from "./github/create-services.js";
import { onIssueLabeled } from "./github/on-issue-labeled.js";
import { onPullRequestReview } from "./github/on-pull-request-review.js";
import { onRetryComment } from "./github/on-retry-comment.js";
import { onReviseComment } from "./github/on-revise-comment.js";

export type { MagisAppOptions, MagisServices } from "./github/create-services.js";

/** The MAGIS Probot app: registers its triggers and starts the job queue. */
export function magisApp(options: MagisAppOptions = {}): ApplicationFunction {
  return async (app) => {
    const services = createServices(app, options);
    app.on("issues.labeled", onIssueLabeled(services.queue));
    app.on("issue_comment.created", onRetryComment(services.queue));
    app.on("issue_comment.created", onReviseComment(services.queue, services.bot));
    app.on("pull_request_review.submitted", onPullRequestReview(services.queue, services.bot));
    options.onReady?.(services);
    await services.queue.start();
  };
}

export default magisApp();
