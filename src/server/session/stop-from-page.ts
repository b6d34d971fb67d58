import type { JobQueue } from "../../jobs/job-queue.js";
import type { SteerEntry } from "../../session/types.js";
import type { JobRecord } from "../../store/jobs.js";
import type { SessionStore } from "../../store/sessions.js";

/**
 * Stops a queued or running job from its session page, the way removing its label does: the queue cancels its key's
 * jobs of its kind, with a reason naming who stopped it (which its status comment and its record then say), after a
 * `steer` entry in its session. False when the job had ended already and there was nothing to stop.
 */
export async function stopFromPage(
  parts: { queue: Pick<JobQueue, "cancel">; sessions: Pick<SessionStore, "append">; now: () => number },
  job: JobRecord,
  by: string,
): Promise<boolean> {
  if (job.status !== "queued" && job.status !== "running") return false;
  const steer: SteerEntry = { action: "stop", by, via: "page" };
  await parts.sessions.append(job.id, [{ at: parts.now(), kind: "steer", data: JSON.stringify(steer) }]);
  return (await parts.queue.cancel(job.key, `@${by} stopped it on its session page`, job.kind)) > 0;
}
