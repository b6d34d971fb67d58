import type { JobQueue } from "../jobs/job-queue.js";
import { approvePlan, openPlanWait } from "../jobs/steer-job.js";
import type { SessionPagesOptions } from "../server/serve-session-pages.js";
import type { SteerEntry } from "../session/types.js";
import type { Store } from "../store/store.js";

/** What steering from the page goes through: the queue that cancels, the store that holds the jobs and their sessions. */
export interface SteerParts {
  store: Pick<Store, "jobs" | "sessions">;
  queue: Pick<JobQueue, "cancel">;
  now?: () => number;
}

/**
 * What the session pages' buttons do, kept out of the HTTP layer: Stop cancels a queued or running job the way removing
 * its label does (the queue cancels its key's jobs of its kind, with a reason naming who stopped it, after a `steer`
 * entry in its session); Go approves a waiting plan as `/magis go` does; `planWaitOpen` says whether the job waits for
 * that now. Stop and Go answer false when there was nothing to stop or approve.
 */
export function steerFromPage(parts: SteerParts): Pick<SessionPagesOptions, "stop" | "approve" | "planWaitOpen"> {
  const { jobs, sessions } = parts.store;
  const now = parts.now ?? Date.now;
  return {
    async stop(job, by) {
      if (job.status !== "queued" && job.status !== "running") return false;
      const steer: SteerEntry = { action: "stop", by, via: "page" };
      await sessions.append(job.id, [{ at: now(), kind: "steer", data: JSON.stringify(steer) }]);
      return (await parts.queue.cancel(job.key, `@${by} stopped it on its session page`, job.kind)) > 0;
    },
    approve: (job, by, guidance) => approvePlan(sessions, jobs, job.id, { by, via: "page", ...(guidance && { guidance }) }),
    planWaitOpen: async (job) => openPlanWait(await sessions.read(job.id), now()) !== null,
  };
}
