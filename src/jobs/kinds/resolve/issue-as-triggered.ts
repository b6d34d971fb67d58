import type { IssueSnapshot } from "../../../github/read/read-issue-text.js";
import { jobKey } from "../../../store/jobs.js";
import type { JobStore } from "../../../store/store.js";
import { resolvePayload } from "./payload.js";

/**
 * The issue as the trigger of its last successful run carried it (title, body, author, and when): what a revision of
 * that run's pull request works from, so that an edit of the issue since, by anyone, steers nothing. Undefined when
 * no such run is recorded, or it carried no snapshot (a job an earlier version queued).
 */
export function issueAsTriggered(jobs: JobStore, repo: { owner: string; repo: string }): (issue: number) => Promise<IssueSnapshot | undefined> {
  return async (issue) => {
    const run = await jobs.newest({ key: jobKey(repo.owner, repo.repo, issue), kind: "resolve-issue", status: "succeeded" });
    const payload = run ? resolvePayload.safeParse(run.payload) : undefined;
    if (!payload?.success || !payload.data.issue || !payload.data.triggeredAt) return undefined;
    return { ...payload.data.issue, at: payload.data.triggeredAt };
  };
}
