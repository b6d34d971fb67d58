import { codeSpan, neutralize } from "../../../lib/markdown.js";
import type { PlanProposal } from "../../../pipeline/types.js";

/** The plan and the tasks as the status comment and the session show them while the job waits for approval (Markdown). */
export function describePlan(proposal: PlanProposal): string {
  const owner = new Map(proposal.developers.map((d) => [d.path, d.name]));
  const tasks = proposal.tasks.map((t) => `- ${codeSpan(t.path)} (${neutralize(owner.get(t.path) ?? "a developer")}): ${neutralize(oneLine(t.description))}`);
  const steps = proposal.plan.steps.map((step, i) => `${i + 1}. ${step.map(codeSpan).join(", ")}${step.length > 1 ? " (at the same time)" : ""}`);
  return ["**Tasks**", "", ...tasks, "", "**Plan**", "", ...steps, "", neutralize(oneLine(proposal.plan.rationale))].join("\n");
}

/** Model prose on one line, bounded: a task line stays a line of the list. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}
