import { AGENTS } from "../../../config.js";
import type { DeclinedFile, RevisionResult } from "../../../pipeline/revise/types.js";
import { cell, codeCell, details, neutralize } from "../../../lib/markdown.js";
import type { FileTask, TaskOutcome } from "../../../pipeline/types.js";
import { statusMarker } from "../../../github/status/status-comment.js";
import { check, codingSteps, environmentSteps, plural, renderStepList, reproductionSteps, smallPrint } from "../../render-step-list.js";
import { describeReproduction, describeTestsReport } from "../../../pipeline/index.js";
import type { CiFixStatus } from "../../../github/read/read-ci-feedback.js";
import type { StatusState } from "../../track-status.js";

/** What the status comment of a revision shows: the run's progress, then its summary (or its failure). */
export interface RevisionStatus extends StatusState {
  /** How much feedback was read, once it was. */
  feedback?: { comments: number; files: number; general: number };
  tasks?: FileTask[];
  declined?: DeclinedFile[];
  /** Set for a fix of failing CI: what failed and which attempt this is. */
  ci?: CiFixStatus;
  /** Set when the revision finished: the commit pushed (null when nothing changed), the result, and why nothing changed (a clause). */
  done?: { commit: string | null; parent: string; branch: string; result: RevisionResult | null; note?: string };
}

/** The state of a revision that has just started. */
export function startRevisionStatus(jobId: number, trigger: string): RevisionStatus {
  return { jobId, trigger, attempts: [] };
}

/** The status comment of a revision as Markdown: a checklist while it runs, the summary when it is done, or the failure. */
export function renderRevisionStatus(state: RevisionStatus): string {
  if (state.done && !state.failure) return renderSummary(state, state.done);
  return renderStepList({
    jobId: state.jobId,
    headings: {
      running: "### 👀 MAGIS is revising this pull request",
      failed: "### 😕 MAGIS could not revise this pull request",
      stopped: "### ⏹️ MAGIS stopped revising this pull request",
    },
    steps: [
      check(state.feedback !== undefined, feedbackLine(state)),
      check(state.tasks !== undefined, tasksLine(state)),
      ...environmentSteps(state),
      ...reproductionSteps(state),
      ...codingSteps(state),
      check(false, "Push one commit and answer the comments"),
    ],
    failure: state.failure,
    footer: `Run #${state.jobId} · ${state.trigger}`,
    sessionUrl: state.sessionUrl,
  });
}

function feedbackLine(state: RevisionStatus): string {
  if (!state.feedback) return "Read the feedback";
  const { comments, files, general } = state.feedback;
  const parts = [];
  if (comments > 0) parts.push(`${plural(comments, "inline comment", "inline comments")} on ${plural(files, "file", "files")}`);
  if (general > 0) parts.push(general === 1 ? "general feedback" : `${general} pieces of general feedback`);
  return `Feedback read: ${parts.join(" and ") || "nothing to act on"}`;
}

function tasksLine(state: RevisionStatus): string {
  if (!state.tasks) return "The Manager maps the feedback to file-level tasks";
  const names = state.tasks.map((t) => `\`${t.path}\``).join(", ");
  const declined = state.declined?.length ? `; not changing ${state.declined.map((d) => `\`${d.path}\``).join(", ")}` : "";
  return `${plural(state.tasks.length, "task", "tasks")}${names ? `: ${names}` : ""}${declined}`;
}

function renderSummary(state: RevisionStatus, done: NonNullable<RevisionStatus["done"]>): string {
  const lines = [statusMarker(state.jobId)];
  const result = done.result;
  const ci = state.ci;
  if (done.commit && result) {
    const files = result.changes.map((c) => `\`${c.path}\``).join(", ");
    lines.push(ci ? "### 🔧 MAGIS pushed a fix for the failing CI" : "### 🚀 MAGIS revised this pull request", "");
    if (ci) lines.push(`CI failed on ${neutralize(ci.checks)}; pushed ${short(done.commit)} (attempt ${ci.attempt} of ${ci.of}).`, "");
    lines.push(`Pushed ${short(done.commit)} on \`${done.branch}\` (on top of ${short(done.parent)}); it changes ${files}.`);
  } else if (ci) {
    lines.push(
      "### MAGIS pushed no fix for the failing CI",
      "",
      `CI failed on ${neutralize(ci.checks)}; nothing was pushed: ${oneLine(done.note ?? "no task produced a change the QA Engineer approved")}.`,
    );
  } else {
    lines.push(
      "### MAGIS made no change in this revision",
      "",
      `Nothing was pushed: ${oneLine(done.note ?? "no task produced a change the QA Engineer approved")}.`,
    );
  }
  if (result && result.outcomes.length > 0) {
    lines.push("", "#### Tasks", "", renderTaskTable(result), "", details("QA reviews, attempt by attempt", renderAttempts(result)));
  }
  if (result && result.declined.length > 0) {
    lines.push("", "#### Not changed", "", ...result.declined.map((d) => `- \`${d.path}\`: ${oneLine(d.reason)}`));
  }
  if (result?.tests) lines.push("", `${neutralize(describeTestsReport(result.tests))}.`);
  if (result?.reproduction) lines.push("", `${neutralize(describeReproduction(result.reproduction))}.`);
  if (ci && ci.unrelated.length > 0)
    lines.push("", `These failures looked unrelated to the change: ${neutralize(ci.unrelated.join(", "))}; re-run them if they fail again.`);
  if (result) lines.push("", renderUsageLine(result));
  lines.push("", smallPrint(`Run #${state.jobId} · ${state.trigger}`, state.sessionUrl));
  return lines.join("\n");
}

function renderTaskTable(result: RevisionResult): string {
  const rows = result.outcomes.map((o) => {
    const task = result.tasks.find((t) => t.path === o.path);
    return `| \`${codeCell(o.path)}\` | ${cell(task?.description ?? "")} | ${cell(o.developer.name)} | ${o.attempts.length} | ${verdict(o)} | ${o.kept && o.diff ? "yes" : "no"} |`;
  });
  return ["| File | Task | Developer | Attempts | QA verdict | Changed |", "| --- | --- | --- | --- | --- | --- |", ...rows].join("\n");
}

function renderAttempts(result: RevisionResult): string {
  return result.outcomes
    .map((o) => {
      const attempts = o.attempts.map((a) =>
        a.error
          ? `- Attempt ${a.number}: refused before review: ${oneLine(a.error)}`
          : `- Attempt ${a.number}: ${a.review?.approved ? "approved" : "changes requested"}: ${oneLine(a.review?.comment ?? "")}`,
      );
      return [`**\`${o.path}\`** (${neutralize(o.developer.name)})`, "", ...attempts].join("\n");
    })
    .join("\n\n");
}

/** The QA verdict of a task in words. */
export function verdict(outcome: TaskOutcome): string {
  if (outcome.approved) return "approved";
  const last = outcome.attempts.at(-1);
  if (!last) return "not attempted";
  return last.error ? "no change (last attempt refused)" : outcome.kept ? "kept without approval" : "not approved";
}

function renderUsageLine(result: RevisionResult): string {
  const { byAgent, calls, wallMs } = result.usage;
  const total = AGENTS.reduce((sum, a) => sum + byAgent[a].totalTokens, 0);
  const perAgent = AGENTS.filter((a) => byAgent[a].calls > 0).map((a) => `${a} ${byAgent[a].calls} on \`${byAgent[a].model}\``);
  return `**Usage:** ${plural(calls, "model call", "model calls")}, ${total} tokens, ${(wallMs / 1000).toFixed(1)} s${perAgent.length ? ` — ${perAgent.join(", ")}` : ""}.`;
}

function short(sha: string): string {
  return sha.slice(0, 7);
}

function oneLine(text: string): string {
  return neutralize(text)
    .replace(/\s*\n\s*/g, " ")
    .trim();
}
