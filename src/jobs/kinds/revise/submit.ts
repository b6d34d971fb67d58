import type { Context } from "probot";
import type { MagisConfig } from "../../../config.js";
import type { JobQueue } from "../../job-queue.js";
import { jobKey } from "../../../store/jobs.js";
import { postNote } from "../../../triggers/post-note.js";
import type { Decision } from "../../../triggers/trigger-desk.js";

/** The data a `revise-pull-request` job carries from its trigger. */
export interface ReviseJobPayload {
  /** The validated config read when the trigger arrived. */
  config: MagisConfig;
  /** Who started it and how, as the status comment says it. */
  trigger: string;
  /** The review whose inline comments are the feedback, if a review started it. */
  reviewId?: number;
  /** The review's text (cleaned), or "". */
  reviewBody: string;
  /** `/magis revise` guidance (cleaned), or "": a bare `/magis revise` revises the latest review again. */
  guidance: string;
  /** The `/magis revise` comment (gets the reactions), if one started it. */
  commentId?: number;
  /** Who asked for the revision (named in the summary and the revision history). */
  reviewer: string;
  /** When the review or command was made: comments written later are not read as hints. */
  triggeredAt?: string;
  /**
   * Set when CI failed on the bot's latest commit: the feedback is the failed checks of `headSha`, read when the job runs,
   * and this is fix `attempt` of at most `of`.
   */
  ci?: { headSha: string; attempt: number; of: number };
}

/** What a trigger hands over: the pull request, its head branch and the job's data. */
export interface ReviseTrigger {
  pullNumber: number;
  headRef: string;
  payload: ReviseJobPayload;
  /** What makes the job unique, when not the webhook's delivery (a CI fix: the commit, whichever event reported it). */
  delivery?: string;
}

/**
 * The issue a bot branch belongs to (`<prefix>issue-N`, or `…issue-N-2` for a second branch), or null. A revision
 * takes the key of that issue, so it never runs beside a `/magis retry` that rewrites the same branch.
 */
export function issueOfBranch(prefix: string, branch: string): number | null {
  if (!branch.startsWith(prefix)) return null;
  const match = /^issue-(\d+)(?:-\d+)?$/.exec(branch.slice(prefix.length));
  return match ? Number(match[1]) : null;
}

/**
 * Queues a `revise-pull-request` job. A review that arrives while another job on the pull request (or its issue) is
 * queued or running waits for it, and the pull request is told so: the review is not lost, and not forgotten.
 */
export async function submitReviseJob(
  context: Context<"pull_request_review.submitted" | "issue_comment.created" | "check_suite.completed" | "workflow_run.completed">,
  queue: JobQueue,
  trigger: ReviseTrigger,
): Promise<Decision> {
  const { owner, repo } = context.repo();
  const issue = issueOfBranch(trigger.payload.config.branch_prefix, trigger.headRef);
  const outcome = await queue.submit(
    {
      delivery: trigger.delivery ?? context.id,
      // Issue and pull request numbers share one sequence, so a pull request's own number never collides with an issue's.
      key: jobKey(owner, repo, issue ?? trigger.pullNumber),
      kind: "revise-pull-request",
      installationId: context.payload.installation!.id,
      owner,
      repo,
      number: trigger.pullNumber,
      payload: trigger.payload as unknown as Record<string, unknown>,
    },
    "wait",
  );
  if (outcome.status === "queued" && outcome.behind) {
    await postNote(
      context,
      `⏳ MAGIS is still busy with an earlier run on this pull request or its issue. This revision (${trigger.payload.trigger}) is queued and starts when that run ends.`,
      trigger.pullNumber,
    );
  }
  if (outcome.status === "duplicate") {
    return {
      outcome: "ignored",
      detail: trigger.delivery ? "a fix for this commit's CI failure was queued before" : "a job for this delivery was queued before",
    };
  }
  if (outcome.status === "busy") return { outcome: "declined", detail: "another job for this pull request was queued or running" };
  return { outcome: "queued", detail: `job #${outcome.job.id}${outcome.behind ? ", behind a job on the same issue" : ""}` };
}
