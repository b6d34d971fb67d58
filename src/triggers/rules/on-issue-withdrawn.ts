import type { Context } from "probot";
import { jobKey } from "../../store/jobs.js";
import { configForTrigger } from "../config-for-trigger.js";
import type { Decision } from "../../store/triggers.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/**
 * `issues.closed` and `issues.unlabeled` (the configured label): the issue's queued or running run is cancelled, and
 * its status comment says by what. Whoever GitHub lets close the issue or remove the label may stop the bot this way,
 * a bot included (a stale-issue bot closing it, say).
 */
export function onIssueWithdrawn({ queue }: RuleServices): [TriggerRule<"issues.closed">, TriggerRule<"issues.unlabeled">] {
  const cancel = async (context: Context<"issues.closed" | "issues.unlabeled">, reason: string): Promise<Decision> => {
    const { owner, repo } = context.repo();
    const cancelled = await queue.cancel(jobKey(owner, repo, context.payload.issue.number), reason, "resolve-issue");
    return cancelled > 0
      ? { outcome: "cancelled", detail: `${reason}: ${cancelled} job(s) cancelled` }
      : { outcome: "ignored", detail: `${reason}, with no run queued or running` };
  };
  return [
    {
      event: "issues.closed",
      wants: (payload) => !payload.issue.pull_request,
      fromBots: true,
      decide: (context) => cancel(context, `@${context.payload.sender.login} closed the issue`),
    },
    {
      event: "issues.unlabeled",
      wants: (payload) => Boolean(payload.label) && !payload.issue.pull_request,
      fromBots: true,
      decide: async (context) => {
        const loaded = await configForTrigger(context, context.payload.issue.number, () => false);
        if (!loaded.ok) return loaded.decision;
        const label = context.payload.label?.name ?? "";
        if (label !== loaded.config.label) return { outcome: "ignored", detail: `the label \`${label}\` is not the configured \`${loaded.config.label}\`` };
        return cancel(context, `@${context.payload.sender.login} removed the label \`${label}\``);
      },
    },
  ];
}
