import { setTimeout as sleep } from "node:timers/promises";
import { StageError } from "../../../pipeline/errors.js";
import type { PlanProposal } from "../../../pipeline/types.js";
import type { PlanWait } from "../../../session/types.js";
import type { SessionRow, SessionStore } from "../../../store/sessions.js";
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
 * Waits for someone allowed to trigger to approve the plan (`plan_approval: true`): a `plan-wait` entry goes to the
 * session, the status comment shows the plan and how to approve, and the session is read every poll for a `go`
 * (written by approvePlan, from `/magis go` or the page's button). The job's time limit stops meanwhile; a cancellation
 * still ends the wait. Resolves with the approver's guidance; past `plan_approval_minutes`, or when the store did not
 * keep the plan-wait, it throws a StageError, so the job ends saying why and writes no code.
 */
export async function waitForApproval(parts: ApprovalParts, proposal: PlanProposal): Promise<{ guidance?: string }> {
  const { run, jobId, sessions, now } = parts;
  const minutes = run.config.plan_approval_minutes;
  if (!sessions) throw noSessions();
  const until = now() + minutes * 60_000;
  const summary = describePlan(proposal);
  run.session.record({ kind: "plan-wait", data: { until, summary } });
  // Stored before it is announced, so a `/magis go` that follows the status comment finds the wait open; read back,
  // because the recorder goes on past a store that fails, and a wait nobody can find would refuse every go.
  await run.session.flush();
  let { rows, seq: seen } = await storedWait(sessions, jobId, until);
  run.status.update((s) => ({ ...s, planWait: { until, minutes, summary } }));
  const resume = run.pauseTimeLimit();
  try {
    for (;;) {
      // `seen` is the plan-wait's number at first, then the last entry read: a go after it answers the wait.
      const go = findApproval(rows, seen);
      if (go) {
        run.status.update((s) => ({ ...s, planWait: undefined, approvedBy: go.by }));
        return go.guidance ? { guidance: go.guidance } : {};
      }
      seen = rows.at(-1)?.seq ?? seen;
      if (now() >= until) throw notApproved(minutes);
      await sleep(Math.min(parts.pollMs ?? APPROVAL_POLL_MS, Math.max(0, until - now())), undefined, { signal: run.signal });
      rows = await sessions.read(jobId, { afterSeq: seen });
    }
  } finally {
    resume();
  }
}

/** The job's plan-wait (the one ending at `until`) as the store kept it, and the session's rows up to now; throws when it is not there. */
async function storedWait(sessions: SessionStore, jobId: number, until: number): Promise<{ rows: SessionRow[]; seq: number }> {
  let rows: SessionRow[];
  try {
    rows = await sessions.read(jobId);
  } catch (error) {
    throw notStored({ cause: error });
  }
  const wait = rows.find((row) => row.kind === "plan-wait" && (JSON.parse(row.data) as PlanWait).until === until);
  if (!wait) throw notStored();
  return { rows, seq: wait.seq };
}

function notStored(options?: ErrorOptions): StageError {
  return new StageError(
    "plan",
    "The wait for the plan's approval could not be stored in the job's session (the app's database failed the write), so no `/magis go` could reach this run; no code was written and nothing was pushed.",
    "Comment `/magis retry` once the app's database takes writes again (its log says what failed), or set `plan_approval: false` in .github/magis.yml to run without waiting.",
    options,
  );
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
