import type { SessionOutcome } from "../../session/types.js";
import type { JobRecord } from "../../store/jobs.js";

/**
 * How a job ended as its record says, for a session that did not record it (a job failed as lost, its worker dead,
 * writes no outcome entry): the page's header then says what the record says rather than "running". A record that is
 * gone reads as failed.
 */
export function recordOutcome(job: JobRecord | null): SessionOutcome {
  if (!job) return { status: "failed", detail: "the job's record is gone" };
  const detail = job.detail ?? "";
  const stage = job.stage ? { stage: job.stage } : {};
  if (job.status === "succeeded") return { status: "succeeded", detail, ...(job.detail && { pullRequest: job.detail }) };
  if (job.status === "cancelled") return { status: "cancelled", detail, ...stage };
  // A declined job is one MAGIS would not run: the page shows it as not done, with the record's reason.
  return { status: "failed", detail: job.status === "declined" ? `declined: ${detail}` : detail, ...stage };
}
