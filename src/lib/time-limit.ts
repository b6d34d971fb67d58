import { setMaxListeners } from "node:events";

/** A run went past `job_timeout_minutes` (an App or Action job, `magis resolve`, one instance of `magis eval`). */
export class TimeLimitError extends Error {
  constructor(readonly minutes: number) {
    super(`The run took longer than job_timeout_minutes (${minutes} minutes) and was stopped`);
  }
}

/** A run's clock: its signal, and the call that stops the clock once the run has ended. */
export interface TimeLimit {
  /** Aborted with a TimeLimitError when the time is up, or with the reason of the outer signal when that aborts first. */
  signal: AbortSignal;
  clear(): void;
}

/** Starts the clock of a run that may take `minutes`, within `outer` (a cancellation, a signal to the process) when given. */
export function startTimeLimit(minutes: number, outer?: AbortSignal): TimeLimit {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new TimeLimitError(minutes)), minutes * 60_000);
  const signal = outer ? AbortSignal.any([outer, timer.signal]) : timer.signal;
  // Every model request and command of the run listens on this one signal (the SDK adds a listener per request).
  setMaxListeners(0, signal);
  return { signal, clear: () => clearTimeout(timeout) };
}
