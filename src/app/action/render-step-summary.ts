import type { JobRecord } from "../../store/jobs.js";
import type { TriggerRecord } from "../../store/triggers.js";

/** What one Action run came to: the event, what was decided about it, and its job if one ran. */
export interface ActionOutcome {
  event: string;
  trigger: TriggerRecord | null;
  job: JobRecord | null;
}

/** The step summary (Markdown) of an Action run: one heading and the lines that say what happened and why. */
export function renderStepSummary(outcome: ActionOutcome): string {
  const { trigger, job } = outcome;
  if (!trigger)
    return `### MAGIS: nothing to do\n\nThe \`${outcome.event}\` event is not a MAGIS trigger (a label, \`/magis retry\`, \`/magis revise\`, a review of the bot's pull request, or an issue closed or unlabelled).`;
  if (!job) return `### MAGIS: ${trigger.outcome ?? "undecided"}\n\n${trigger.detail ?? ""}`;
  const heading =
    job.status === "succeeded"
      ? "### 🚀 MAGIS finished"
      : job.status === "cancelled"
        ? "### ⏹️ MAGIS stopped"
        : job.status === "failed"
          ? "### 😕 MAGIS failed"
          : `### MAGIS: ${job.status}`;
  // The stage says where a job stopped; a finished job's last one (cleanup, answer) is bookkeeping and reads as a fault.
  const where = job.stage && job.status !== "succeeded" ? ` in stage \`${job.stage}\`` : "";
  const lines = [heading, "", `- Job #${job.id} (${job.kind}) on #${job.number}: ${job.status}${where}`];
  if (job.detail) lines.push(`- ${job.detail}`);
  return lines.join("\n");
}
