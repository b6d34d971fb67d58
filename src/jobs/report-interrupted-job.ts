import type { JobRecord } from "../store/jobs.js";
import { LOST_REASON } from "../backends/postgres/postgres-queue.js";
import { RETRY_ISSUE, REVISE_PULL_REQUEST } from "./explain-failure.js";
import { renderInterrupted } from "./kinds/resolve/render-status.js";
import { findStatusComment } from "../github/status-comment.js";
import type { Octokit } from "../github/types.js";

/** Tells the issue (or pull request) that its run died with the previous process (or with its lost worker): edits the run's status comment (found by its marker), or posts one. */
export async function reportInterruptedJob(octokit: Octokit, job: JobRecord): Promise<void> {
  const issue = { owner: job.owner, repo: job.repo, number: job.number };
  const failure = {
    stage: job.stage ?? "start",
    reason:
      job.detail === LOST_REASON
        ? "The worker running this run stopped answering (it was killed or its machine was lost), so the run was given up; nothing more will be pushed by it."
        : "The app restarted while this run was in progress, so it was stopped and nothing was pushed by it.",
    nextStep: (job.kind === "revise-pull-request" ? REVISE_PULL_REQUEST : RETRY_ISSUE).howTo,
  };
  const found = await findStatusComment(octokit, issue, job.id);
  const body = renderInterrupted(found?.body ?? "", job.id, failure);
  if (found) {
    await octokit.rest.issues.updateComment({ owner: job.owner, repo: job.repo, comment_id: found.id, body });
  } else {
    await octokit.rest.issues.createComment({ owner: job.owner, repo: job.repo, issue_number: job.number, body });
  }
}
