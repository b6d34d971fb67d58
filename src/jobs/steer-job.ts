import type { PlanWait, SteerEntry } from "../session/types.js";
import type { JobRecord } from "../store/jobs.js";
import type { SessionRow, SessionStore } from "../store/sessions.js";
import type { JobStore } from "../store/store.js";

/** A job's open wait for plan approval: the `plan-wait` entry not yet answered by a `steer` entry. */
export interface OpenPlanWait {
  /** The `plan-wait` entry's number in the job's session. */
  seq: number;
  wait: PlanWait;
}

/**
 * The plan-wait a job's session leaves open, if any: its last `plan-wait` entry, when no `go` or `stop` came after it
 * and its time has not run out (`now`). Both the job waiting and whoever approves read the session this way.
 */
export function openPlanWait(rows: readonly SessionRow[], now: number): OpenPlanWait | null {
  let open: OpenPlanWait | null = null;
  for (const row of rows) {
    if (row.kind === "plan-wait") open = { seq: row.seq, wait: JSON.parse(row.data) as PlanWait };
    else if (row.kind === "steer" || row.kind === "outcome") open = null;
  }
  return open && open.wait.until > now ? open : null;
}

/** The first `go` in `rows` after the plan-wait numbered `afterSeq`, if one came. */
export function findApproval(rows: readonly SessionRow[], afterSeq: number): SteerEntry | null {
  for (const row of rows) {
    if (row.seq <= afterSeq || row.kind !== "steer") continue;
    const steer = JSON.parse(row.data) as SteerEntry;
    if (steer.action === "go") return steer;
  }
  return null;
}

/** The running `resolve-issue` job (by its key) when it waits for its plan's approval, else null. */
export async function findWaitingJob(sessions: SessionStore, jobs: JobStore, key: string): Promise<JobRecord | null> {
  const running = await jobs.newest({ key, kind: "resolve-issue", status: "running" });
  if (!running) return null;
  return openPlanWait(await sessions.read(running.id), Date.now()) ? running : null;
}

/**
 * Approves the plan of a running job that waits for it (`plan_approval: true`): appends the `steer` entry the job polls
 * its session for. False when the job is not running or not waiting (no plan-wait open, or already answered). Two at once both
 * append; the job takes the first.
 */
export async function approvePlan(
  sessions: SessionStore,
  jobs: JobStore,
  jobId: number,
  steer: { by: string; guidance?: string; via: "comment" | "page" },
): Promise<boolean> {
  const job = await jobs.get(jobId);
  if (!job || job.status !== "running") return false;
  if (!openPlanWait(await sessions.read(jobId), Date.now())) return false;
  const entry: SteerEntry = { action: "go", by: steer.by, via: steer.via, ...(steer.guidance ? { guidance: steer.guidance } : {}) };
  await sessions.append(jobId, [{ at: Date.now(), kind: "steer", data: JSON.stringify(entry) }]);
  return true;
}
