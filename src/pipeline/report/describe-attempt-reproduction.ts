import { describeExit } from "../tests/describe-test-verdict.js";
import type { Attempt } from "../types.js";

/**
 * How the reproduction ran with an attempt, in a few words: "failed (exit 1)", and when that run was only advice (the
 * task ran beside others, whose changes it may need) and did not pass, that it did not count against approval.
 */
export function describeAttemptReproduction(attempt: Pick<Attempt, "reproduction" | "reproductionAdvisory">): string | undefined {
  const run = attempt.reproduction;
  if (!run) return undefined;
  const ended = describeExit(run);
  if (!attempt.reproductionAdvisory || run.outcome === "passed") return ended;
  return `${ended}, only advice: this task runs beside others, and the reproduction may pass only with all their changes`;
}
