import { setTimeout as sleep } from "node:timers/promises";
import { StageError } from "../../../pipeline/errors.js";
import type { PlanProposal } from "../../../pipeline/types.js";
import type { SessionStore } from "../../../store/sessions.js";
import type { JobRun } from "../../run-job.js";
import { findApproval } from "../../steer-job.js";
import { describePlan } from "./describe-plan.js";
import type { ResolveStatus } from "./render-status.js";

/** How often a waiting job reads its session for the approval. */
export const APPROVAL_POLL_MS = 1500;

/** What a job waiting for its plan's approval uses: its run, its record's id, where sessions are kept, the clock. */
export interface ApprovalParts {
  run: Pick<JobRun<ResolveStatus>, "config" | "session" | "status" | "signal" | "pauseTimeLimit">;
  jobId: number;
  sessions: SessionStore | undefined;
  now: () => number;
  pollMs?: number;
}

/**
 * Waits for someone allowed to trigger to approve the plan (`plan_approval: true`): the status comment shows the plan
 * and how to approve, a `plan-wait` entry goes to the session, and the session is read every poll for a `go` (written
 * by approvePlan, from `/magis go` or the page's button). The job's time limit stops meanwhile; a cancellation still
 * ends the wait. Resolves with the approver's guidance; past `plan_approval_minutes` it throws a StageError, so the
 * job ends saying nobody approved and writes no code.
 */
export async function waitForApproval(parts: ApprovalParts, proposal: PlanProposal): Promise<{ guidance?: string }> {
  const { run, jobId, sessions, now } = parts;
  const minutes = run.config.plan_approval_minutes;
  if (!sessions) throw noSessions();
  const until = now() + minutes * 60_000;
  const summary = describePlan(proposal);
  run.session.record({ kind: "plan-wait", data: { until, summary } });
  // Recorded before it is announced: a `/magis go` that follows the status comment finds the wait open.
  await run.session.flush();
  run.status.update((s) => ({ ...s, planWait: { until, minutes, summary } }));
  const resume = run.pauseTimeLimit();
  try {
    let seen = 0;
    let waitSeq: number | null = null;
    for (;;) {
      const rows = await sessions.read(jobId, { afterSeq: seen });
      for (const row of rows) if (row.kind === "plan-wait") waitSeq = row.seq;
      const go = waitSeq === null ? null : findApproval(rows, waitSeq);
      if (go) {
        run.status.update((s) => ({ ...s, planWait: undefined, approvedBy: go.by }));
        return go.guidance ? { guidance: go.guidance } : {};
      }
      seen = rows.at(-1)?.seq ?? seen;
      if (now() >= until) throw notApproved(minutes);
      await sleep(Math.min(parts.pollMs ?? APPROVAL_POLL_MS, Math.max(0, until - now())), undefined, { signal: run.signal });
    }
  } finally {
    resume();
  }
}

function notApproved(minutes: number): StageError {
  return new StageError(
    "plan",
    `Nobody approved the plan within ${minutes} minute${minutes === 1 ? "" : "s"}, so no code was written and nothing was pushed.`,
    "Comment `/magis retry` to plan again (anything after it on the line is passed on as guidance), then `/magis go` once the plan suits you; or raise `plan_approval_minutes` in .github/magis.yml.",
  );
}

function noSessions(): StageError {
  return new StageError(
    "plan",
    "`plan_approval` is set, but this run keeps no session, so no approval could reach it.",
    "Set `plan_approval: false` in .github/magis.yml for runs of this kind (the Action and the command line do not wait), then run again.",
  );
}
