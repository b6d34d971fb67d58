import { DAY_MS } from "../git/object-cache.js";
import type { QueueLog } from "../jobs/job-queue.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import type { SessionStore } from "../store/sessions.js";
import { every, type Sweep } from "./sweep-work-folder.js";

/** How often a process of the app removes the sessions of jobs that ended more than MAGIS_SESSION_DAYS ago. */
const SESSION_SWEEP_MS = 3600 * 1000;

/**
 * Removes the sessions of jobs that ended more than `days` ago (MAGIS_SESSION_DAYS; 0: every ended job's) now, and
 * again every `everyMs` until stopped. Every process of the app sweeps (under PostgreSQL the first to come finds the
 * work, the others nothing), so no role is needed for it. A failure is logged, and the next sweep tries again.
 */
export function sweepSessions(
  sessions: Pick<SessionStore, "prune">,
  days: number,
  log: Pick<QueueLog, "info" | "warn">,
  options: { everyMs?: number; now?: () => number } = {},
): Sweep {
  const { everyMs = SESSION_SWEEP_MS, now = Date.now } = options;
  const ended = days === 0 ? "that ended (MAGIS_SESSION_DAYS=0)" : `that ended more than ${days === 1 ? "a day" : `${days} days`} ago (MAGIS_SESSION_DAYS)`;
  let stopped = false;
  const sweep = every(everyMs, () => {
    sessions.prune(now() - days * DAY_MS).then(
      (removed) => {
        if (removed > 0) log.info({ removed, days }, `removed the sessions of ${removed === 1 ? "1 job" : `${removed} jobs`} ${ended}`);
      },
      (error: unknown) => {
        // A sweep under way when the process stops meets a closed store: nothing to say.
        if (!stopped) log.warn({ error: redactSecrets(String(error), []) }, `could not remove the sessions of jobs ${ended}; the next sweep tries again`);
      },
    );
  });
  return {
    stop: () => {
      stopped = true;
      sweep.stop();
    },
  };
}
