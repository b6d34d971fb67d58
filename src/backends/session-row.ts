import type { JobStatus } from "../store/jobs.js";
import type { SessionRow } from "../store/sessions.js";

/** The statuses of a job that has ended: its session is kept for MAGIS_SESSION_DAYS after, then pruned. */
export const ENDED_STATUSES = ["succeeded", "failed", "cancelled", "declined"] as const satisfies readonly JobStatus[];

/** A session entry as a row of the `session_entries` table, the same columns in SQLite and PostgreSQL. */
export interface SessionEntryRow {
  job_id: number;
  seq: number;
  at: number;
  kind: string;
  data: string;
}

/** The entry a `session_entries` row holds. */
export function sessionFromRow(row: SessionEntryRow): SessionRow {
  return { jobId: row.job_id, seq: row.seq, at: row.at, kind: row.kind, data: row.data };
}
