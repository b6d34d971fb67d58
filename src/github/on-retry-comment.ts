import type { Context } from "probot";
import type { JobQueue } from "../jobs/job-queue.js";
import { hasPermission } from "./check-permission.js";
import { cleanText } from "./clean-text.js";
import { loadConfig, renderConfigProblems } from "./load-config.js";
import { submitResolveJob } from "./submit-resolve-job.js";

/** The guidance of a `/magis retry` comment (the rest of its first line), or null when the comment is not one. */
export function parseRetryCommand(body: string): { guidance: string } | null {
  const firstLine = cleanText(body).split("\n")[0] ?? "";
  const match = /^\/magis\s+retry(?:\s+(.*))?$/i.exec(firstLine.trim());
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}

/** `issue_comment.created`: `/magis retry [guidance]` on an open issue, by someone allowed, queues a new run. */
export function onRetryComment(queue: JobQueue) {
  return async (context: Context<"issue_comment.created">): Promise<void> => {
    const { issue, comment, sender, installation } = context.payload;
    if (context.isBot || !installation) return;
    const command = parseRetryCommand(comment.body);
    if (!command) return;
    if (issue.state !== "open" || issue.pull_request) return;
    const loaded = await loadConfig(context);
    if (!loaded.ok) {
      await context.octokit.rest.issues.createComment(context.issue({ body: renderConfigProblems(loaded.error) }));
      return;
    }
    const { config } = loaded;
    if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
      const who = config.allowed_permissions.join(", ");
      await context.octokit.rest.issues.createComment(
        context.issue({ body: `@${sender.login} only people with ${who} permission on this repository may run \`/magis retry\`.` }),
      );
      return;
    }
    await submitResolveJob(context, queue, {
      issueNumber: issue.number,
      config,
      trigger: `@${sender.login} commented \`/magis retry\`${command.guidance ? " with guidance" : ""}`,
      guidance: command.guidance,
      commentId: comment.id,
    });
  };
}
