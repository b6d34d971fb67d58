import { postIssueComment } from "../../github/publish/post-issue-comment.js";
import { react } from "../../github/status/status-comment.js";
import { approvePlan } from "../../jobs/steer-job.js";
import { jobKey } from "../../store/jobs.js";
import { admitTrigger } from "../admit-trigger.js";
import { firstLineCommand } from "./first-line-command.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** The guidance of a `/magis go` comment (the rest of its first line), or null when the comment is not one. */
export function parseGoCommand(body: string): { guidance: string } | null {
  return firstLineCommand(body, "go");
}

/**
 * `issue_comment.created`: `/magis go [guidance]` on an open issue, by someone allowed to trigger, approves the plan of
 * the issue's running job that waits for it (`plan_approval: true`); the guidance goes to its Developers as a hint.
 * With nothing waiting, the answer says so.
 */
export function onGoComment({ refusals, steering }: RuleServices): TriggerRule<"issue_comment.created"> {
  return {
    event: "issue_comment.created",
    wants: (payload) => payload.issue.state === "open" && !payload.issue.pull_request && parseGoCommand(payload.comment.body) !== null,
    decide: async (context) => {
      const { issue, comment, sender } = context.payload;
      const guidance = parseGoCommand(comment.body)?.guidance ?? "";
      const admitted = await admitTrigger(context, { number: issue.number, refusal: { answer: "/magis go" }, refusals });
      if (!admitted.ok) return admitted.decision;
      const { owner, repo } = context.repo();
      const where = { owner, repo, number: issue.number };
      const running = steering ? await steering.jobs.newest({ key: jobKey(owner, repo, issue.number), kind: "resolve-issue", status: "running" }) : null;
      const approved =
        steering && running
          ? await approvePlan(steering.sessions, steering.jobs, running.id, { by: sender.login, via: "comment", ...(guidance && { guidance }) })
          : false;
      if (!approved) {
        await postIssueComment(
          context.octokit,
          where,
          `@${sender.login} no run of MAGIS on this issue is waiting for its plan to be approved, so \`/magis go\` has nothing to approve. With \`plan_approval: true\` in .github/magis.yml a run waits after its plan; \`/magis retry\` starts one.`,
        );
        return { outcome: "ignored", detail: `@${sender.login} commented /magis go with no run waiting for approval` };
      }
      await react(context.octokit, where, { target: { kind: "comment", id: comment.id }, content: "eyes", onError: () => {} });
      return { outcome: "queued", detail: `@${sender.login} approved the plan of job ${running!.id}${guidance ? " with guidance" : ""}` };
    },
  };
}
