import type { Context } from "probot";
import type { JobQueue } from "../../job-queue.js";
import { jobKey } from "../../../store/jobs.js";
import { issueOfBranch } from "../../../github/branches/choose-branch.js";
import { postNote } from "../../../github/status/post-note.js";
import type { Decision } from "../../../store/triggers.js";
import type { ReviseJobPayload } from "./payload.js";

/** What a trigger hands over: the pull request, its head branch and the job's data. */
export interface ReviseTrigger {
  pullNumber: number;
  headRef: string;
  /** The job's data, less the version this code writes. */
  payload: Omit<ReviseJobPayload, "version">;
  /** What makes the job unique, when not the webhook's delivery (a CI fix: the commit, whichever event reported it). */
  delivery?: string;
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
      payload: { version: 1, ...trigger.payload },
    },
    "wait",
  );
  if (outcome.status === "queued" && outcome.behind) {
    await postNote(
      context.octokit,
      { owner, repo, number: trigger.pullNumber },
      `⏳ MAGIS is still busy with an earlier run on this pull request or its issue. This revision (${trigger.payload.trigger}) is queued and starts when that run ends.`,
      context.log.child({ delivery: context.id }),
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
