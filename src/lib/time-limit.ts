import { setMaxListeners } from "node:events";

/** A run went past `job_timeout_minutes` (an App or Action job, `magis resolve`, one instance of `magis eval`). */
export class TimeLimitError extends Error {
  constructor(readonly minutes: number) {
    super(`The run took longer than job_timeout_minutes (${minutes} minutes) and was stopped`);
  }
}

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

/** Starts the clock of a run that may take `minutes`, within `outer` (a cancellation, a signal to the process) when given. */
export function startTimeLimit(minutes: number, outer?: AbortSignal): TimeLimit {
  const timer = new AbortController();
  let left = minutes * 60_000;
  let startedAt = Date.now();
  let timeout: NodeJS.Timeout | undefined = setTimeout(() => timer.abort(new TimeLimitError(minutes)), left);
  const signal = outer ? AbortSignal.any([outer, timer.signal]) : timer.signal;
  // Every model request and command of the run listens on this one signal (the SDK adds a listener per request).
  setMaxListeners(0, signal);
  let cleared = false;
  const stop = () => {
    clearTimeout(timeout);
    timeout = undefined;
  };
  const clear = () => {
    cleared = true;
    stop();
  };
  return {
    signal,
    clear,
    pause() {
      if (timeout === undefined || timer.signal.aborted) return () => {};
      stop();
      left -= Date.now() - startedAt;
      let resumed = false;
      return () => {
        if (resumed || cleared) return;
        resumed = true;
        startedAt = Date.now();
        timeout = setTimeout(() => timer.abort(new TimeLimitError(minutes)), Math.max(0, left));
      };
    },
  };
}
