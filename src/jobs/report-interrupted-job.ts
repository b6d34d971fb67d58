import type { JobRecord } from "../store/jobs.js";
import { RETRY_ISSUE, REVISE_PULL_REQUEST } from "./explain-failure.js";
import { capBody } from "../github/publish/fit-body.js";
import { findStatusComment, statusMarker } from "../github/status/status-comment.js";
import { editIssueComment } from "../github/publish/edit-issue-comment.js";
import { postIssueComment } from "../github/publish/post-issue-comment.js";
import { failureLines } from "./render-step-list.js";
import type { Octokit } from "../github/types.js";

/** Tells the issue (or pull request) that its run died with the previous process (or with its lost worker): edits the run's status comment (found by its marker), or posts one. */
export async function reportInterruptedJob(octokit: Octokit, job: JobRecord, how: "interrupted" | "lost"): Promise<void> {
  const issue = { owner: job.owner, repo: job.repo, number: job.number };
  const failure = {
    stage: job.stage ?? "start",
    reason:
      how === "lost"
        ? "The worker running this run stopped answering (it was killed or its machine was lost), so the run was given up; nothing more will be pushed by it."
        : "The app restarted while this run was in progress, so it was stopped and nothing was pushed by it.",
    nextStep: (job.kind === "revise-pull-request" ? REVISE_PULL_REQUEST : RETRY_ISSUE).howTo,
  };
  const found = await findStatusComment(octokit, issue, job.id);
  const body = capBody(renderInterrupted(found?.body ?? "", job.id, failure));
  if (found) {
    await editIssueComment(octokit, issue, found.id, body);
  } else {
    await postIssueComment(octokit, issue, body);
  }
}

/** A status comment whose run was cut off (the app restarted): the checklist so far, marked failed with the next step. */
export function renderInterrupted(previousBody: string, jobId: number, failure: { stage: string; reason: string; nextStep: string }): string {
  const kept = previousBody
    .split("\n")
    .filter((line) => line.startsWith("- [") || line.startsWith("  - "))
    .join("\n");
  return [statusMarker(jobId), "### 😕 MAGIS could not finish this run", "", kept, "", ...failureLines(failure)].join("\n");
}
