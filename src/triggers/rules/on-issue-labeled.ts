import { submitResolveJob } from "../../jobs/kinds/resolve/submit.js";
import { admitTrigger } from "../admit-trigger.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** `issues.labeled`: the configured label on an open issue, added by someone allowed, queues a run. */
export function onIssueLabeled({ queue, refusals }: RuleServices): TriggerRule<"issues.labeled"> {
  return {
    event: "issues.labeled",
    wants: (payload) => Boolean(payload.label) && payload.issue.state === "open" && !payload.issue.pull_request,
    decide: async (context, receivedAt) => {
      const { issue, sender } = context.payload;
      const label = context.payload.label?.name ?? "";
      const admitted = await admitTrigger(context, {
        number: issue.number,
        answersBrokenConfig: (configured) => label === configured,
        matches: (config) =>
          label === config.label ? null : { outcome: "ignored", detail: `the label \`${label}\` is not the configured \`${config.label}\`` },
        refusals,
        refusal: { ignore: "added the label" },
      });
      if (!admitted.ok) return admitted.decision;
      return submitResolveJob(context, queue, {
        issueNumber: issue.number,
        config: admitted.config,
        trigger: `@${sender.login} added the label \`${label}\``,
        guidance: "",
        label,
        triggeredAt: receivedAt,
      });
    },
  };
}
