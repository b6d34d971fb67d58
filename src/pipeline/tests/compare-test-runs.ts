import type { TestRun, TestVerdict } from "../types.js";
import { listNames } from "./describe-test-verdict.js";

/**
 * Judges a test run with a change against the run before it. In this order, the change breaks something when:
 *  1. the tests no longer finish (timed out or could not run) where they finished before;
 *  2. they all passed before and do not now;
 *  3. a test fails now that did not fail before (by name, when the runner names failing tests);
 *  4. fewer tests pass than before (by the runner's counts: a suite that no longer loads names no failing test);
 *  5. more tests fail than before (by the runner's counts, when it names none).
 * Otherwise it breaks nothing; `fixed` lists what no longer fails.
 */
export function compareTestRuns(before: TestRun, after: TestRun): TestVerdict {
  const failedBefore = new Set(before.failures);
  const failingNow = new Set(after.failures);
  const newFailures = after.failures.filter((name) => !failedBefore.has(name));
  const fixed = before.failures.filter((name) => !failingNow.has(name));
  const verdict: TestVerdict = { run: after, newFailures, fixed };
  const breaks = findBreakage(before, after, newFailures);
  return breaks ? { ...verdict, breaks } : verdict;
}

function findBreakage(before: TestRun, after: TestRun, newFailures: string[]): string | undefined {
  if (after.outcome === "timed-out") return "the tests no longer finish in time with this change (they did before it)";
  if (after.outcome === "error") return `the tests no longer run with this change (${after.error ?? "they did not exit"})`;
  if (before.outcome === "passed" && after.outcome !== "passed") {
    return `the tests passed before this change and fail with it${newFailures.length > 0 ? `: ${listNames(newFailures)}` : ""}`;
  }
  if (newFailures.length > 0) return `tests that did not fail before this change fail with it: ${listNames(newFailures)}`;
  if (before.counts && after.counts && after.counts.passed < before.counts.passed) {
    return `${after.counts.passed} tests pass with this change, ${before.counts.passed} before it`;
  }
  if (before.failures.length === 0 && after.failures.length === 0 && before.counts && after.counts && after.counts.failed > before.counts.failed) {
    return `${after.counts.failed} tests fail with this change, ${before.counts.failed} before it`;
  }
  return undefined;
}
