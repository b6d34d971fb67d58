import { z } from "zod";
import type { FileTask, MeetingTurn, Plan, ShownIssue, StageContext } from "../types.js";
import { formatTranscript } from "./format-team.js";
import { validatePlan } from "../validate-plan.js";

/** The answer its prompt asks for (the prompt's examples are checked against it); the reasoning comes before the plan. */
export const answerSchema = z.object({
  rationale: z.string(),
  steps: z.array(z.array(z.string())),
});

/**
 * The Manager's main plan from the meeting (MAGIS Algorithm 2, line 12), as validated data. An
 * invalid plan goes back to the Manager once with every problem named; a second invalid plan gives
 * way to running the tasks one after another, which the plan's note says.
 */
export async function makePlan(ctx: StageContext, issue: ShownIssue, tasks: FileTask[], transcript: MeetingTurn[]): Promise<Plan> {
  const paths = tasks.map((t) => t.path);
  if (tasks.length === 1) return { steps: [paths], rationale: "A single task: nothing to order." };
  const vars = {
    issue: issue.shown,
    tasks: tasks.map((t) => `- \`${t.path}\`: ${t.description}`).join("\n"),
    transcript: formatTranscript(transcript),
  };
  let feedback = "(none: this is your first plan)";
  let problems: string[] = [];
  for (let round = 1; round <= 2; round++) {
    const { value } = await ctx.llm.ask({ agent: "manager", prompt: "manager-make-plan", vars: { ...vars, feedback }, schema: answerSchema });
    const check = validatePlan(value.steps, paths);
    if (check.ok) return { steps: check.steps, rationale: value.rationale };
    problems = check.problems;
    feedback = [
      "Your previous plan was rejected:",
      ...problems.map((p) => `- ${p}`),
      `Use each of these file paths exactly once: ${paths.map((p) => `"${p}"`).join(", ")}.`,
    ].join("\n");
  }
  return {
    steps: paths.map((p) => [p]),
    rationale: "The tasks run one after another in task order.",
    note: `The Manager's plan was invalid twice (${problems.join("; ")}), so the tasks ran sequentially instead.`,
  };
}
