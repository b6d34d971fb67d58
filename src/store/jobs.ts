/**
 * Where a job is in its life. `declined`: it arrived while another job with its key ran and was answered instead;
 * `cancelled`: stopped on request (its issue closed, its time ran out) before or while it ran.
 */
export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "declined" | "cancelled";

/** What a trigger asks for: everything a worker needs to run the job later, in any process. */
export interface NewJob {
  /** The webhook delivery id (`X-GitHub-Delivery`); a second job with the same id is never recorded. */
  delivery: string;
  /** Jobs with the same key never run at the same time (see `jobKey`). */
  key: string;
  /** What to run: `resolve-issue` (issue 6 adds pull-request revisions). */
  kind: string;
  installationId: number;
  owner: string;
  repo: string;
  /** The issue (or pull request) number the job reports on. */
  number: number;
  /** Kind-specific data (validated config, guidance, sender), stored as JSON. */
  payload: Record<string, unknown>;
}

/** A job as stored. */
export interface JobRecord extends NewJob {
  id: number;
  status: JobStatus;
  /** The stage a running job is in, or the stage a failed or cancelled job stopped in. */
  stage: string | null;
  /** Why it failed, was declined or cancelled; the PR URL when it succeeded. */
  detail: string | null;
  /** The worker process running it, or that ran it last (null in the embedded app, where one process runs every job). */
  worker: string | null;
  /** When its latest run started (null until one did); `updatedAt` of a finished job is when it ended. */
  startedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A repository as the app's records name it: `owner/name` in lowercase (the evolution memory, the jobs' keys). */
export function repositoryKey(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}

/** The key that serializes work on one issue: an issue and the bot's pull requests for it share it. */
export function jobKey(owner: string, repo: string, issueNumber: number): string {
  return `${repositoryKey(owner, repo)}#${issueNumber}`;
}
