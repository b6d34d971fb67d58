import { readPermission } from "../github/read/check-permission.js";
import { isRepositoryPublic } from "../github/read/read-repository-visibility.js";
import type { Octokit } from "../github/types.js";
import type { Viewer } from "../server/session-auth.js";
import type { JobRecord } from "../store/jobs.js";
import { rememberAnswers } from "./remember-answers.js";

/** What a viewer may do with a job's session: nothing (the page is a 404), read it, or also steer the job (Stop, Go). */
export type SessionAccess = "none" | "read" | "write";

/** The job a session belongs to, as far as its access goes: its repository and the installation that sees it. */
export type SessionJob = Pick<JobRecord, "installationId" | "owner" | "repo">;

/** Decides a viewer's access to a job's session (see createSessionAccess). */
export type DecideSessionAccess = (viewer: Viewer | null, job: SessionJob) => Promise<SessionAccess>;

/** What the decision asks GitHub through, and the operator's choice for public repositories. */
export interface SessionAccessOptions {
  /** A client of an installation (GitHubHost.auth). */
  auth: (installationId: number) => Promise<Octokit>;
  /** MAGIS_SESSIONS_PUBLIC: a public repository's sessions are `read` for everyone, signed in or not. */
  sessionsPublic: boolean;
  now?: () => number;
  /** How long an answer of GitHub is kept (default a minute): a page's live updates and its reloads ask once. */
  cacheMs?: number;
}

/**
 * The access decision of the session pages: the viewer's permission on the job's repository, asked through the job's
 * installation (read and triage: `read`; write, maintain and admin: `write`). A signed-out visitor, or a user GitHub
 * gives no permission, gets `none`, except that with `sessionsPublic` a public repository's sessions are `read` for
 * everyone. GitHub answers `read` for every account on a public repository, so a signed-in user reads those anyway.
 * Answers are kept for `cacheMs`; a failed question is not kept, and its error reaches the caller.
 */
export function createSessionAccess(options: SessionAccessOptions): DecideSessionAccess {
  const { auth, sessionsPublic } = options;
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? 60_000;
  const remembered = rememberAnswers({ cacheMs, now });
  const where = (job: SessionJob) => `${job.installationId}:${job.owner}/${job.repo}`.toLowerCase();
  const isPublic = (job: SessionJob) =>
    remembered(`public ${where(job)}`, async () => isRepositoryPublic(await auth(job.installationId), { owner: job.owner, repo: job.repo }));
  const levelOf = (viewer: Viewer, job: SessionJob) =>
    remembered(`user ${viewer.id} ${where(job)}`, async (): Promise<SessionAccess> => {
      const held = await readPermission(await auth(job.installationId), { owner: job.owner, repo: job.repo }, viewer.login);
      if (held?.permission === "admin" || held?.permission === "write") return "write";
      return held?.permission === "read" ? "read" : "none";
    });
  return async (viewer, job) => {
    const level = viewer ? await levelOf(viewer, job) : "none";
    if (level !== "none" || !sessionsPublic) return level;
    return (await isPublic(job)) ? "read" : "none";
  };
}
