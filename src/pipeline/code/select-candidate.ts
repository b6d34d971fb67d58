import { z } from "zod";
import { describeExit } from "../tests/describe-test-verdict.js";
import type { CandidateGroup, StageContext } from "../types.js";
import type { AttemptInput } from "./make-attempt.js";

/** The answer qa-select-candidate asks for: why, then the number of the change chosen (null: no preference). */
export const selectionSchema = z.object({
  reason: z.string(),
  change: z.number().int().nullable(),
});

/**
 * The QA Engineer's choice among the surviving candidate groups (Trae Agent's selector), seeing each group's diff,
 * votes and test results. Returns the group's index in `groups`, or the number the model named when it names none (null)
 * or none that exists.
 */
export async function selectCandidate(
  ctx: StageContext,
  attempt: AttemptInput,
  groups: CandidateGroup[],
): Promise<{ choice: number; reason: string } | { named: number | null }> {
  const { value } = await ctx.llm.ask({
    agent: "qa",
    prompt: "qa-select-candidate",
    vars: {
      issue: attempt.issue.shown,
      path: attempt.task.path,
      task: attempt.task.description,
      developer: attempt.developer.name,
      changes: groups.map((group, i) => describeGroup(group, i + 1)).join("\n\n"),
    },
    schema: selectionSchema,
  });
  const choice = value.change === null ? -1 : value.change - 1;
  return choice >= 0 && choice < groups.length ? { choice, reason: value.reason.trim() || "(no reason given)" } : { named: value.change };
}

/** One group as the selector reads it: its number, votes, what the tests and the reproduction did, and its diff. */
function describeGroup(group: CandidateGroup, number: number): string {
  const votes = group.members.length;
  const tests = group.tests
    ? `the tests ${describeExit(group.tests.run)}${group.tests.fixed.length ? `, fixing ${group.tests.fixed.join(", ")}` : ""}`
    : "the tests did not run";
  const reproduction = group.reproduction ? `the reproduction ${describeExit(group.reproduction)}` : "no reproduction ran";
  return [`### Change ${number}: ${votes} vote${votes === 1 ? "" : "s"}; ${tests}; ${reproduction}`, "```diff", group.diff.trimEnd(), "```"].join("\n");
}
