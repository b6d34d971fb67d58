import type { Context } from "probot";
import type { MagisConfig } from "../../../config.js";
import type { JobQueue, WhenBusy } from "../../job-queue.js";
import { jobKey } from "../../../store/jobs.js";
import type { ResolveJobPayload } from "./payload.js";
import { postNote } from "../../../github/status/post-note.js";
import type { Decision } from "../../../store/triggers.js";

/** What a trigger hands over: the issue, the validated config and how the run was asked for. */
export interface ResolveTrigger {
  issueNumber: number;
  config: MagisConfig;
  trigger: string;
  guidance: string;
  commentId?: number;
  /** The label that started the run; removing it cancels the run. */
  label?: string;
  /** When the trigger happened (ISO 8601): the comment's time, or when the label's webhook arrived. */
  triggeredAt: string;
  /** With a run for the issue under way: answer that it is (`decline`, the default), or run after it (a retry that replaced it). */
  whenBusy?: WhenBusy;
}

/**
 * Queues a `resolve-issue` job for the webhook's delivery, with the issue as the webhook showed it (a later edit
 * does not reach the agents); answers on the issue when a run for it is already under way.
 */
export async function submitResolveJob(
  context: Context<"issues.labeled" | "issue_comment.created">,
  queue: JobQueue,
  trigger: ResolveTrigger,
): Promise<Decision> {
  const { owner, repo } = context.repo();
  const { issue } = context.payload;
  const payload: ResolveJobPayload = {
    version: 1,
    config: trigger.config,
    trigger: trigger.trigger,
    guidance: trigger.guidance,
    issue: { title: issue.title, body: issue.body ?? "", author: issue.user?.login ?? "" },
    triggeredAt: trigger.triggeredAt,
    ...(trigger.commentId ? { commentId: trigger.commentId } : {}),
    ...(trigger.label ? { label: trigger.label } : {}),
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
      payload,
    },
    trigger.whenBusy ?? "decline",
  );
  if (outcome.status === "busy") {
    await postNote(
      context.octokit,
      { owner, repo, number: trigger.issueNumber },
      "⏳ MAGIS is already working on this issue. Wait for that run to finish (its status comment shows progress), then comment `/magis retry` if needed.",
      context.log.child({ delivery: context.id }),
    );
    return { outcome: "declined", detail: "another job for this issue was queued or running" };
  }
  if (outcome.status === "duplicate") return { outcome: "ignored", detail: "a job for this delivery was queued before" };
  return { outcome: "queued", detail: `job #${outcome.job.id}` };
}
