import type { LockWait } from "../store/retry-while-locked.js";

/** How long each kind of job-store call waits out another process's lock on the database (see retryWhileLocked). */
export interface StoreWaits {
  /** A webhook's submission or cancellation: it must be answered within about a second, lock or not. */
  webhook: LockWait;
  /** A running job's own records (running, succeeded, failed, cancelled): long enough for an operator's lock to pass. */
  job: LockWait;
  /** Start-up: nothing is served until the store answers, so as long as the lock lasts. */
  startUp: LockWait;
}

/** The waits the app uses. */
export const DEFAULT_STORE_WAITS: StoreWaits = {
  webhook: { totalMs: 500, firstPauseMs: 5, maxPauseMs: 100 },
  job: { totalMs: 10 * 60_000, firstPauseMs: 50, maxPauseMs: 2_000 },
  startUp: { totalMs: Number.POSITIVE_INFINITY, firstPauseMs: 100, maxPauseMs: 5_000 },
};
