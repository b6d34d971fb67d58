import { afterEach, expect, it, vi } from "vitest";
import { DecisionRetries, RETRY_FOR_MS } from "../../../../src/triggers/desk/decision-retries.js";

afterEach(() => {
  vi.useRealTimers();
});

it("pauses twice as long before each try, at most five minutes, and gives up half an hour after the delivery", () => {
  vi.useFakeTimers();
  const receivedAt = Date.now();
  const due: string[] = [];
  const retries = new DecisionRetries(30_000, (delivery) => due.push(delivery));
  const pauses: number[] = [];
  for (;;) {
    const pause = retries.schedule({ delivery: "d", receivedAt });
    if (pause === null) break;
    pauses.push(pause);
    vi.advanceTimersByTime(pause);
  }
  expect(pauses.slice(0, 6)).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  expect(pauses.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(RETRY_FOR_MS);
  expect(Date.now() - receivedAt + 300_000).toBeGreaterThan(RETRY_FOR_MS);
  expect(due).toHaveLength(pauses.length);
});

it("starts over for a delivery it was told was decided, and drops every pending try when stopped", () => {
  vi.useFakeTimers();
  const due: string[] = [];
  const retries = new DecisionRetries(1_000, (delivery) => due.push(delivery));
  expect(retries.schedule({ delivery: "a", receivedAt: Date.now() })).toBe(1_000);
  expect(retries.schedule({ delivery: "a", receivedAt: Date.now() })).toBe(2_000);
  retries.forget("a");
  expect(retries.schedule({ delivery: "a", receivedAt: Date.now() })).toBe(1_000);
  retries.stop();
  vi.advanceTimersByTime(10_000);
  expect(due).toEqual([]);
});
