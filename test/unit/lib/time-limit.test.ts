import { afterEach, describe, expect, it, vi } from "vitest";
import { startTimeLimit, TimeLimitError } from "../../../src/lib/time-limit.js";
import { manualClock } from "../../support/manual-clock.js";

describe("startTimeLimit", () => {
  afterEach(() => void vi.useRealTimers());

  it("stops the run at its minutes", () => {
    vi.useFakeTimers();
    const limit = startTimeLimit(1);
    vi.advanceTimersByTime(59_999);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(limit.signal.reason).toBeInstanceOf(TimeLimitError);
  });

  it("does not count a paused wait, and resumes with the time that was left", () => {
    vi.useFakeTimers();
    const limit = startTimeLimit(1);
    vi.advanceTimersByTime(40_000);
    const resume = limit.pause();
    vi.advanceTimersByTime(10 * 60_000);
    expect(limit.signal.aborted).toBe(false);
    resume();
    vi.advanceTimersByTime(19_999);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(limit.signal.aborted).toBe(true);
  });

  it("stays stopped when resumed after the run ended", () => {
    vi.useFakeTimers();
    const limit = startTimeLimit(1);
    const resume = limit.pause();
    limit.clear();
    resume();
    vi.advanceTimersByTime(2 * 60_000);
    expect(limit.signal.aborted).toBe(false);
  });

  it("counts on the clock it is given, paused and resumed there too", () => {
    const clock = manualClock(1_000);
    const limit = startTimeLimit(1, undefined, clock);
    clock.advance(30_000);
    const resume = limit.pause();
    clock.advance(5 * 60_000);
    expect(limit.signal.aborted).toBe(false);
    resume();
    clock.advance(29_999);
    expect(limit.signal.aborted).toBe(false);
    clock.advance(1);
    expect(limit.signal.reason).toBeInstanceOf(TimeLimitError);
  });
});
