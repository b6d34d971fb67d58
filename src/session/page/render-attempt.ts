import type { Attempt, CandidateReport, TaskOutcome } from "../../pipeline/types.js";
import { renderDiff } from "./render-diff.js";
import { renderRun, renderVerdict } from "./render-run.js";
import { showText } from "./show-text.js";

/** One Developer attempt at a file: its diff or why there was none, the checks it went through, QA's review, its candidates. */
export function renderAttempt(path: string, attempt: Attempt): string {
  const parts = [`<h3>Attempt ${attempt.number} at <code>${showText(path, 500)}</code></h3>`];
  if (attempt.error) parts.push(`<p class="error">No change to review: ${showText(attempt.error, 4000)}</p>`);
  if (attempt.diff !== undefined) parts.push(renderDiff(attempt.diff));
  if (attempt.checkSkipped) parts.push(`<p class="meta">Language server check skipped: ${showText(attempt.checkSkipped, 1000)}</p>`);
  if (attempt.tests) parts.push(renderVerdict("Tests with this change", attempt.tests));
  if (attempt.reproduction) {
    const advisory = attempt.reproductionAdvisory ? " (advice only: the task ran beside others)" : "";
    parts.push(renderRun(`Reproduction with this change${advisory}`, attempt.reproduction));
  }
  if (attempt.candidates) parts.push(renderCandidates(attempt.candidates));
  if (attempt.review) {
    const verdict = attempt.review.approved ? `<span class="approved">approved</span>` : `<span class="failed">not approved</span>`;
    parts.push(`<p>QA: ${verdict}. ${showText(attempt.review.comment, 8000)}</p>`);
  }
  return parts.join("");
}

/** The candidates of an attempt: how many were sampled, the dropped ones, the groups with their votes, the choice and why. */
function renderCandidates(report: CandidateReport): string {
  const dropped = report.dropped.length
    ? `<ul class="rows">${report.dropped.map((one) => `<li>Candidate ${one.number} dropped: ${showText(one.reason, 2000)}</li>`).join("")}</ul>`
    : "";
  const groups = report.groups.map((group, index) => {
    const chosen = index === report.chosen ? ` <b>chosen</b>` : "";
    const out = group.out ? ` <span class="failed">out: ${showText(group.out, 1000)}</span>` : "";
    const votes = `${group.members.length} vote${group.members.length === 1 ? "" : "s"} (candidates ${group.members.join(", ")})`;
    const checks = [group.tests ? renderVerdict("Tests", group.tests) : "", group.reproduction ? renderRun("Reproduction", group.reproduction) : ""].join("");
    return `<li><details${index === report.chosen ? " open" : ""}><summary>Group ${index + 1}: ${votes}${chosen}${out}</summary>${renderDiff(group.diff)}${checks}</details></li>`;
  });
  return `<div class="candidates"><h4>Candidates: ${report.sampled} sampled, ${report.groups.length} distinct</h4>${dropped}<ol class="rows">${groups.join("")}</ol><p>Why: ${showText(report.why, 4000)}</p></div>`;
}

/** How a file's task ended: approved or not, kept or not, after how many attempts, and its kept diff. */
export function renderTaskDone(outcome: TaskOutcome): string {
  const approved = outcome.approved ? `<span class="approved">approved</span>` : `<span class="failed">not approved</span>`;
  const kept = outcome.kept ? "kept" : "not kept";
  return `<h3>Task <code>${showText(outcome.path, 500)}</code> done: ${approved}, ${kept}, after ${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? "" : "s"}</h3><p class="meta">${showText(outcome.developer.name, 200)} with QA ${showText(outcome.qaRole, 300)}</p>${outcome.kept ? renderDiff(outcome.diff) : ""}`;
}
