import { setMaxListeners } from "node:events";

/** A run went past `job_timeout_minutes` (an App or Action job, `magis resolve`, one instance of `magis eval`). */
export class TimeLimitError extends Error {
  constructor(readonly minutes: number) {
    super(`The run took longer than job_timeout_minutes (${minutes} minutes) and was stopped`);
  }
}

/** What a time limit counts on: the machine's clock and timers, or a clock a test moves by hand. */
export interface LimitClock {
  now(): number;
  /** Calls `fire` once `ms` have passed; the returned call cancels it. */
  after(ms: number, fire: () => void): () => void;
}

/** The machine's clock (read at each call, so tests that fake the timers fake this too). */
export const MACHINE_CLOCK: LimitClock = {
  now: () => Date.now(),
  after(ms, fire) {
    const timeout = setTimeout(fire, ms);
    return () => clearTimeout(timeout);
  },
};

/** A run's clock: its signal, the call that stops the clock once the run has ended, and a pause for waiting on a person. */
export interface TimeLimit {
  /** Aborted with a TimeLimitError when the time is up, or with the reason of the outer signal when that aborts first. */
  signal: AbortSignal;
  clear(): void;
  /**
   * Stops the clock while the run waits on a person (plan approval), so the wait does not eat the run's time; the
   * returned call starts it again with the time that was left. The outer signal still stops the run meanwhile.
   */
  pause(): () => void;
}

/**
 * Starts the clock of a run that may take `minutes`, within `outer` (a cancellation, a signal to the process) when
 * given, counted on `clock` (default the machine's).
 */
export function startTimeLimit(minutes: number, outer?: AbortSignal, clock: LimitClock = MACHINE_CLOCK): TimeLimit {
  const timer = new AbortController();
  const expire = () => timer.abort(new TimeLimitError(minutes));
  let left = minutes * 60_000;
  let startedAt = clock.now();
  let cancel: (() => void) | undefined = clock.after(left, expire);
  const signal = outer ? AbortSignal.any([outer, timer.signal]) : timer.signal;
  // Every model request and command of the run listens on this one signal (the SDK adds a listener per request).
  setMaxListeners(0, signal);
  let cleared = false;
  const stop = () => {
    cancel?.();
    cancel = undefined;
  };
  const clear = () => {
    cleared = true;
    stop();
  };
  return {
    signal,
    clear,
    pause() {
      if (cancel === undefined || timer.signal.aborted) return () => {};
      stop();
      left -= clock.now() - startedAt;
      let resumed = false;
      return () => {
        if (resumed || cleared) return;
        resumed = true;
        startedAt = clock.now();
        cancel = clock.after(Math.max(0, left), expire);
      };
    },
  };
}
