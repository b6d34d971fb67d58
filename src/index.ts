import type { ApplicationFunction } from "probot";
import { createServices, type MagisAppOptions } from "./github/create-services.js";
import { onIssueLabeled } from "./github/on-issue-labeled.js";
import { onIssueWithdrawn } from "./github/on-issue-withdrawn.js";
import { onPullRequestReview } from "./github/on-pull-request-review.js";
import { onRetryComment } from "./github/on-retry-comment.js";
import { onReviseComment } from "./github/on-revise-comment.js";

export type { MagisAppOptions, MagisServices } from "./github/create-services.js";

/** The MAGIS Probot app: records its triggers as they arrive, decides about them afterwards, and starts the job queue. */
export function magisApp(options: MagisAppOptions = {}): ApplicationFunction {
  return async (app) => {
    const services = createServices(app, options, (queue, bot) => [
      onIssueLabeled(queue),
      onRetryComment(queue),
      onReviseComment(queue, bot),
      onPullRequestReview(queue, bot),
      ...onIssueWithdrawn(queue),
    ]);
    app.on(services.desk.events as never, services.desk.receive);
    options.onReady?.(services);
    await services.queue.start();
    services.desk.start();
  };
}

export default magisApp();
