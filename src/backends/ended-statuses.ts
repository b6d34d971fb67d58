import type { JobStatus } from "../store/jobs.js";

/** The statuses of a job that has ended: its session is kept for MAGIS_SESSION_DAYS after, then pruned. */
export const ENDED_STATUSES = ["succeeded", "failed", "cancelled", "declined"] as const satisfies readonly JobStatus[];
