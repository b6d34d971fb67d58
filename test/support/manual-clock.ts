import type { LimitClock } from "../../src/lib/time-limit.js";

/** A clock that moves only when the test moves it: what is timed on it happens then, never by the machine's speed. */
export interface ManualClock extends LimitClock {
  /** Moves the clock `ms` on, firing what fell due, earliest first. */
  advance(ms: number): void;
}

/** A ManualClock standing at `start` (milliseconds). */
export function manualClock(start = 0): ManualClock {
  let now = start;
  const timers = new Set<{ at: number; fire: () => void }>();
  return {
    now: () => now,
    after(ms, fire) {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      const due = [...timers].filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at);
      for (const timer of due) if (timers.delete(timer)) timer.fire();
    },
  };
}
