import { setTimeout as sleep } from "node:timers/promises";

/** How long to keep retrying a store call that finds the database locked, and the pauses between tries (doubling from first to max). */
export interface LockWait {
  /** Give up (throw the lock error) once this much time has passed since the first try; Infinity never gives up. */
  totalMs: number;
  firstPauseMs: number;
  maxPauseMs: number;
}

/** SQLite's primary result codes SQLITE_BUSY and SQLITE_LOCKED; an extended code (SQLITE_BUSY_TIMEOUT, 773) holds one in its low byte. */
const LOCK_RESULT_CODES = [5, 6];

/**
 * Whether an error is SQLite saying another connection holds the lock it needs (SQLITE_BUSY and its variants,
 * SQLITE_LOCKED), as either engine says it: better-sqlite3 names the code (`code: "SQLITE_BUSY"`), node:sqlite numbers
 * it (`code: "ERR_SQLITE_ERROR", errcode: 5`).
 */
export function isLockError(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  return code === "ERR_SQLITE_ERROR" && typeof errcode === "number" && LOCK_RESULT_CODES.includes(errcode & 0xff);
}

/**
 * Runs the store call `call`; while SQLite reports the database locked, runs it again after a pause,
 * until `wait.totalMs` have passed, then throws the last lock error. Other errors are thrown at once. The pauses are
 * timers, not SQLite's busy handler (which sleeps on the one thread), so the event loop keeps serving webhooks while
 * another process holds the lock; each try blocks only for the connection's short busy_timeout.
 * `onLocked` hears of each try that found the lock (to log it), with the time waited so far.
 */
export async function retryWhileLocked<T>(
  call: () => T | Promise<T>,
  wait: LockWait,
  onLocked: (tries: number, waitedMs: number, error: unknown) => void = () => {},
  now: () => number = Date.now,
): Promise<T> {
  const started = now();
  let pause = wait.firstPauseMs;
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      const waited = now() - started;
      if (!isLockError(error) || waited >= wait.totalMs) throw error;
      onLocked(tries, waited, error);
      await sleep(Math.min(pause, wait.totalMs - waited));
      pause = Math.min(pause * 2, wait.maxPauseMs);
    }
  }
}
