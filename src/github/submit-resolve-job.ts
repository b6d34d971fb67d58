import type { Context } from "probot";
import type { MagisConfig } from "../config.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { jobKey } from "../store/jobs.js";
import type { ResolveJobPayload } from "./run-resolve-job.js";

/** What a trigger hands over: the issue, the validated config and how the run was asked for. */
export interface ResolveTrigger {
  issueNumber: number;
  config: MagisConfig;
  trigger: string;
  guidance: string;
  commentId?: number;
}

/** Queues a `resolve-issue` job for the webhook's delivery; answers on the issue when a run for it is already under way. */
export async function submitResolveJob(
  context: Context<"issues.labeled" | "issue_comment.created">,
  queue: JobQueue,
  trigger: ResolveTrigger,
): Promise<void> {
  const { owner, repo } = context.repo();
  const payload: ResolveJobPayload = {
    config: trigger.config,
    trigger: trigger.trigger,
    guidance: trigger.guidance,
    ...(trigger.commentId ? { commentId: trigger.commentId } : {}),
  };
  const outcome = await queue.submit(
    {
      delivery: context.id,
      key: jobKey(owner, repo, trigger.issueNumber),
      kind: "resolve-issue",
      installationId: context.payload.installation!.id,
      owner,
      repo,
      number: trigger.issueNumber,
      payload: payload as unknown as Record<string, unknown>,
    },
    "decline",
  );
  if (outcome.status === "busy") {
    await context.octokit.rest.issues.createComment(
      context.issue({ body: "⏳ MAGIS is already working on this issue. Wait for that run to finish (its status comment shows progress), then comment `/magis retry` if needed." }),
    );
  }
  context.log.info({ delivery: context.id, issue: trigger.issueNumber, outcome: outcome.status }, "magis trigger handled");
}
