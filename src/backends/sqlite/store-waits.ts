import { isLockError, retryWhileLocked, type LockWait } from "./retry-while-locked.js";
import type { Recording } from "../../jobs/job-lifecycle.js";
import type { QueueLog } from "../../jobs/job-queue.js";
import { JobStoreBusyError } from "../../store/store.js";

/** How long each kind of job-store call waits out another process's lock on the database (see retryWhileLocked). */
export interface StoreWaits {
  /** A webhook's submission or cancellation: it must be answered within about a second, lock or not. */
  webhook: LockWait;
  /** A running job's own records (running, succeeded, failed, cancelled): long enough for an operator's lock to pass. */
  job: LockWait;
  /** Start-up: nothing is served until the store answers, so as long as the lock lasts. */
  startUp: LockWait;
}

/**
 * How long a trigger's decision waits out a lock to submit or cancel a job. Decisions run after the webhook was
 * answered, so they can wait a minute for a lock to pass before the trigger is recorded as failed (and redeliverable).
 */
export const DECISION_WAIT: LockWait = { totalMs: 60_000, firstPauseMs: 20, maxPauseMs: 2_000 };

/** The waits the app uses. */
export const DEFAULT_STORE_WAITS: StoreWaits = {
  webhook: { totalMs: 500, firstPauseMs: 5, maxPauseMs: 100 },
  job: { totalMs: 10 * 60_000, firstPauseMs: 50, maxPauseMs: 2_000 },
  startUp: { totalMs: Number.POSITIVE_INFINITY, firstPauseMs: 100, maxPauseMs: 5_000 },
};

/**
 * A store call made while a webhook waits for its answer: another process's lock is waited out for `wait.totalMs`
 * (timers, not SQLite's busy sleep), then JobStoreBusyError says nothing was recorded and the delivery should be
 * redelivered (Probot answers it 503).
 */
export async function duringWebhook<T>(call: () => T | Promise<T>, file: string, wait: LockWait = DEFAULT_STORE_WAITS.webhook): Promise<T> {
  const started = Date.now();
  try {
    return await retryWhileLocked(call, wait);
  } catch (error) {
    if (isLockError(error)) throw new JobStoreBusyError(file, Date.now() - started, error);
    throw error;
  }
}

/**
 * A store call at start-up (migrations, taking up what an earlier process left): nothing is served yet, so it waits
 * as long as another process's lock lasts, saying so every minute, and once more when the store is free.
 */
export async function atStartUp<T>(
  call: () => T | Promise<T>,
  where: string,
  log: Pick<QueueLog, "info" | "warn">,
  wait: LockWait = DEFAULT_STORE_WAITS.startUp,
): Promise<T> {
  let saidAt = -Infinity;
  const result = await retryWhileLocked(call, wait, (_tries, waitedMs) => {
    if (waitedMs - saidAt < 60_000) return;
    saidAt = waitedMs;
    log.warn(
      { file: where, waitedMs },
      "the job store is locked by another process (a sqlite3 shell, a backup, a stuck magis process?); the app starts once it is released, retrying every few seconds",
    );
  });
  if (saidAt >= 0) log.info({ file: where }, "the job store is free again; starting the job queue");
  return result;
}

/**
 * How a running job's records wait out another process's lock on the SQLite file: retried on timers for `wait.totalMs`
 * (a running job can wait for an operator's lock to pass), saying so once in `log`.
 */
export function sqliteRecording(where: string, wait: LockWait, log: Pick<QueueLog, "warn">): Recording {
  return (job, recording, call) =>
    retryWhileLocked(call, wait, (tries) => {
      if (tries > 1) return;
      log.warn(
        { job: job.id, file: where },
        `the job store is locked by another process; retrying to record job ${job.id} as ${recording} for up to ${Math.round(wait.totalMs / 1000)} s`,
      );
    });
}
