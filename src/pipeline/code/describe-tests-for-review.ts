import { readEnvironmentFailure } from "../tests/read-environment-failure.js";
import { describeVerdictForModel } from "../tests/describe-test-verdict.js";
import { COMMAND_CHARS, cutText } from "../tests/run-reproduction.js";
import type { TestRun, TestVerdict } from "../types.js";

/**
 * The tests' verdict on one attempt as the QA Engineer reads it. A verdict that only repeats the environment's failure
 * (the tests failed before the change for a reason of the environment — no network, a module or command missing — and
 * fail the same way with it, nothing newly failing or passing) says nothing of the change: QA reads one sentence that
 * says so instead of the failing tests and the output, and judges by reading. Any other verdict is given whole.
 */
export function describeTestsForReview(tests: { command: string; before: TestRun; verdict: TestVerdict }): string {
  const { command, before, verdict } = tests;
  if (!judgesNothing(before, verdict)) return describeVerdictForModel(command, before, verdict);
  const gap = readEnvironmentFailure(before.tail, { network: true })!;
  const passing = verdict.run.counts && verdict.run.counts.passed > 0 ? `; the ${verdict.run.counts.passed} that passed before still pass` : "";
  return (
    `The repository's tests (\`${cutText(command, COMMAND_CHARS)}\`) could not judge this change here: they fail for want of ${gap.missing} ` +
    `before the change and with it alike, and none newly fails or passes${passing}. Judge the change by reading.`
  );
}

/**
 * Whether the run with the change fails only as the run before it did, for the environment's reason: the same missing
 * thing (a module the change imports that is not installed is the change's failure, not the environment's).
 */
function judgesNothing(before: TestRun, verdict: TestVerdict): boolean {
  if (before.outcome === "passed" || verdict.run.outcome !== before.outcome) return false;
  if (verdict.newFailures.length > 0 || verdict.fixed.length > 0 || verdict.breaks) return false;
  const gapBefore = readEnvironmentFailure(before.tail, { network: true });
  const gapAfter = readEnvironmentFailure(verdict.run.tail, { network: true });
  return gapBefore !== null && gapAfter !== null && gapBefore.kind === gapAfter.kind && gapBefore.name === gapAfter.name;
}
