import type { Context } from "probot";
import type { JobQueue } from "../../jobs/job-queue.js";
import { hasPermission } from "../../github/check-permission.js";
import { configForTrigger } from "../config-for-trigger.js";
import { submitResolveJob } from "../../jobs/kinds/resolve/submit.js";
import type { TriggerRule } from "../trigger-desk.js";

/** `issues.labeled`: the configured label on an open issue, added by someone allowed, queues a run. */
export function onIssueLabeled(queue: JobQueue): TriggerRule {
  return {
    event: "issues.labeled",
    wants: (payload) => Boolean(payload.label) && payload.issue.state === "open" && !payload.issue.pull_request,
    decide: async (context: Context<"issues.labeled">, receivedAt) => {
      const { issue, label, sender } = context.payload;
      const loaded = await configForTrigger(context, issue.number, (configured) => label!.name === configured);
      if (!loaded.ok) return loaded.decision;
      const { config } = loaded;
      if (label!.name !== config.label) return { outcome: "ignored", detail: `the label \`${label!.name}\` is not the configured \`${config.label}\`` };
      if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
        return { outcome: "ignored", detail: `@${sender.login} added the label without ${config.allowed_permissions.join(", ")} permission` };
      }
      return submitResolveJob(context, queue, {
        issueNumber: issue.number,
        config,
        trigger: `@${sender.login} added the label \`${label!.name}\``,
        guidance: "",
        label: label!.name,
        triggeredAt: receivedAt,
      });
    },
  };
}
