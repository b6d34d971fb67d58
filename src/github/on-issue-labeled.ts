import type { Context } from "probot";
import type { JobQueue } from "../jobs/job-queue.js";
import { hasPermission } from "./check-permission.js";
import { loadConfig, renderConfigProblems } from "./load-config.js";
import { submitResolveJob } from "./submit-resolve-job.js";

/** `issues.labeled`: the configured label on an open issue, added by someone allowed, queues a run. */
export function onIssueLabeled(queue: JobQueue) {
  return async (context: Context<"issues.labeled">): Promise<void> => {
    const { issue, label, sender, installation } = context.payload;
    if (context.isBot || !label || !installation) return;
    if (issue.state !== "open" || issue.pull_request) return;
    const loaded = await loadConfig(context);
    if (!loaded.ok) {
      if (label.name === loaded.label) await context.octokit.rest.issues.createComment(context.issue({ body: renderConfigProblems(loaded.error) }));
      return;
    }
    const { config } = loaded;
    if (label.name !== config.label) return;
    if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
      context.log.info({ sender: sender.login }, "label added by someone without the allowed permissions; ignored");
      return;
    }
    await submitResolveJob(context, queue, {
      issueNumber: issue.number,
      config,
      trigger: `@${sender.login} added the label \`${label.name}\``,
      guidance: "",
    });
  };
}
