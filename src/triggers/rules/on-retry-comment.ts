import type { Context } from "probot";
import type { JobQueue } from "../../jobs/job-queue.js";
import { hasPermission } from "../../github/check-permission.js";
import { cleanText } from "../../lib/clean-text.js";
import { configForTrigger } from "../config-for-trigger.js";
import { submitResolveJob } from "../../jobs/kinds/resolve/submit.js";
import type { TriggerRule } from "../trigger-desk.js";

/** The guidance of a `/magis retry` comment (the rest of its first line), or null when the comment is not one. */
export function parseRetryCommand(body: string): { guidance: string } | null {
  const firstLine = cleanText(body).split("\n")[0] ?? "";
  const match = /^\/magis\s+retry(?:\s+(.*))?$/i.exec(firstLine.trim());
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}

/** `issue_comment.created`: `/magis retry [guidance]` on an open issue, by someone allowed, queues a new run. */
export function onRetryComment(queue: JobQueue): TriggerRule {
  return {
    event: "issue_comment.created",
    wants: (payload) => payload.issue.state === "open" && !payload.issue.pull_request && parseRetryCommand(payload.comment.body) !== null,
    decide: async (context: Context<"issue_comment.created">) => {
      const { issue, comment, sender } = context.payload;
      const command = parseRetryCommand(comment.body)!;
      const loaded = await configForTrigger(context, issue.number);
      if (!loaded.ok) return loaded.decision;
      const { config } = loaded;
      if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
        // A command is addressed to the bot, so it is answered; a label or a review by the same person is not.
        const who = config.allowed_permissions.join(", ");
        await context.octokit.rest.issues.createComment(
          context.issue({ body: `@${sender.login} only people with ${who} permission on this repository may run \`/magis retry\`.` }),
        );
        return { outcome: "declined", detail: `@${sender.login} has none of ${who} permission` };
      }
      return submitResolveJob(context, queue, {
        issueNumber: issue.number,
        config,
        trigger: `@${sender.login} commented \`/magis retry\`${command.guidance ? " with guidance" : ""}`,
        guidance: command.guidance,
        commentId: comment.id,
        triggeredAt: comment.created_at,
      });
    },
  };
}
