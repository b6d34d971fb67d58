import { parseConfig } from "../config.js";
import { hasPermission } from "../github/read/check-permission.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { ModelPrices } from "../llm/prices.js";
import { sessionPages, type SessionPages, type SessionPagesOptions } from "../server/serve-session-pages.js";
import { createSessionAuth, type Viewer } from "../server/session-auth.js";
import type { JobRecord } from "../store/jobs.js";
import type { Store } from "../store/store.js";
import { rememberAnswers } from "./remember-answers.js";
import { createSessionAccess } from "./session-access.js";
import { sessionPagesFrom } from "./session-pages-from.js";
import { steerFromPage } from "./steer-from-page.js";
import type { GitHubHost } from "./service-types.js";
import type { Settings } from "./settings/settings-table.js";

/** Who may trigger when a job's payload names nobody (a payload of an older version): the config's default. */
const DEFAULT_PERMISSIONS = parseConfig({}).allowed_permissions;

/** What the web role's session pages are served from: its store and queue, GitHub through the installations, its log. */
export interface SessionPagesParts {
  store: Pick<Store, "jobs" | "sessions">;
  queue: Pick<JobQueue, "cancel">;
  auth: GitHubHost["auth"];
  log: SessionPagesOptions["log"];
  prices?: ModelPrices;
}

/**
 * The session pages of a web (or all) process, or why they are off (no OAuth client or public URL; see
 * sessionPagesFrom): the sign-in through the App's OAuth client, each viewer's access decided through the job's
 * installation, Stop for people with write permission, and Go for the people the job's config lets trigger.
 */
export function openSessionPages(settings: Settings, parts: SessionPagesParts): SessionPages | { off: string } {
  const on = sessionPagesFrom(settings);
  if ("off" in on) return on;
  const { auth, log } = parts;
  // Kept a minute, as the access decision is: the page and its events ask once, not a GitHub call per connection.
  const remembered = rememberAnswers({ cacheMs: 60_000, now: Date.now });
  const mayApprove = (viewer: Viewer, job: JobRecord) => {
    const allowed = allowedToTrigger(job);
    const key = `approve ${viewer.id} ${job.installationId}:${job.owner}/${job.repo} ${allowed.join(",")}`.toLowerCase();
    return remembered(key, async () => hasPermission(await auth(job.installationId), { owner: job.owner, repo: job.repo }, viewer.login, allowed));
  };
  return sessionPages({
    auth: createSessionAuth({ ...on.auth, log }),
    jobs: parts.store.jobs,
    sessions: parts.store.sessions,
    ...steerFromPage({ store: parts.store, queue: parts.queue }),
    access: createSessionAccess({ auth, sessionsPublic: on.sessionsPublic }),
    mayApprove,
    prices: parts.prices,
    log,
  });
}

/** Where a job's session page is, when the pages are on: what the status comment and the pull request link. */
export function sessionUrlFrom(settings: Settings): ((jobId: number) => string) | undefined {
  const on = sessionPagesFrom(settings);
  if ("off" in on) return undefined;
  return (jobId) => `${on.publicUrl}/jobs/${jobId}`;
}

/** The permissions that may trigger the job, as its repository's config said when it was triggered. */
function allowedToTrigger(job: JobRecord): readonly string[] {
  const config = (job.payload as { config?: { allowed_permissions?: unknown } }).config;
  const allowed = config?.allowed_permissions;
  return Array.isArray(allowed) && allowed.every((one) => typeof one === "string") ? allowed : DEFAULT_PERMISSIONS;
}
