import { details, fence, neutralize } from "../../../lib/markdown.js";
import type { RevisionResult } from "../../../pipeline/revise/types.js";
import { verdict } from "./render-status.js";

/** Where the revision history section of a pull request description starts and ends (hidden, so it can be found again). */
export const HISTORY_START = "<!-- magis:revisions -->";
export const HISTORY_END = "<!-- /magis:revisions -->";

/**
 * The reply in an inline comment's thread: what was changed in the comment's file and in which commit, or why the
 * file was not changed (the Manager declined it, QA never approved, the edits were refused, nothing was pushed).
 */
export function renderReply(path: string, result: RevisionResult, commit: string | null): string {
  const declined = result.declined.find((d) => d.path === path);
  if (declined) return `ℹ️ I did not change \`${path}\`: ${sentence(neutralize(declined.reason))}`;
  const outcome = result.outcomes.find((o) => o.path === path);
  if (!outcome) return `ℹ️ I did not change \`${path}\`: no task of this revision concerned it.`;
  const attempts = `${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? "" : "s"}`;
  const last = outcome.attempts.at(-1);
  if (!outcome.kept || outcome.diff === "" || !commit) {
    const why = last?.error
      ? `my last attempt was refused: ${neutralize(last.error)}`
      : `the QA Engineer did not approve it after ${attempts} (last review: ${neutralize(last?.review?.comment ?? "none")})`;
    return `❌ I did not change \`${path}\`: ${why}. Reply with more precise guidance and comment \`/magis revise\` to try again.`;
  }
  const task = result.tasks.find((t) => t.path === path)?.description ?? "";
  const qa = outcome.approved ? "approved by the QA Engineer" : "**kept without QA approval** (keep_unapproved)";
  return [
    `✅ Changed \`${path}\` in ${commit.slice(0, 7)} (${attempts}, ${qa}): ${neutralize(task)}`,
    "",
    last?.review?.comment ? `QA: ${neutralize(last.review.comment)}` : "",
    "",
    details(`Diff of \`${path}\``, fence(outcome.diff, "diff")),
  ]
    .filter((line, i, all) => line !== "" || all[i - 1] !== "")
    .join("\n");
}

/** One line of the revision history: who asked, what was pushed (or that nothing was), and the QA verdicts. */
export function renderHistoryEntry(entry: {
  number: number;
  jobId: number;
  askedBy: string;
  commit: string | null;
  result: RevisionResult | null;
  note?: string;
}): string {
  const head = `- **Revision ${entry.number}** (run #${entry.jobId}, asked by ${entry.askedBy}):`;
  const result = entry.result;
  if (!entry.commit || !result) return `${head} no change — ${neutralize(entry.note ?? "no task produced an approved change")}.`;
  const verdicts = result.outcomes.map((o) => `\`${o.path}\` ${verdict(o)}`).join(", ");
  return `${head} ${entry.commit.slice(0, 7)} changes ${result.changes.map((c) => `\`${c.path}\``).join(", ")} (${verdicts}).`;
}

/** How many revisions the description's history lists already. */
export function countRevisions(body: string): number {
  const section = historySection(body);
  return section ? (section.text.match(/^- \*\*Revision \d+\*\*/gm) ?? []).length : 0;
}

/**
 * The description with one more entry in its revision history. The section is appended after the original report the
 * first time and found again by its hidden markers afterwards, so entries accumulate and the report stays as it was.
 */
export function appendRevisionHistory(body: string, entry: string): string {
  const section = historySection(body);
  if (!section) return `${body.trimEnd()}\n\n${HISTORY_START}\n### Revision history\n\n${entry}\n${HISTORY_END}\n`;
  const rest = section.closed ? body.slice(section.end) : `${HISTORY_END}\n`;
  return `${body.slice(0, section.end).trimEnd()}\n${entry}\n${rest}`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function historySection(body: string): { text: string; end: number; closed: boolean } | null {
  const start = body.indexOf(HISTORY_START);
  if (start < 0) return null;
  const end = body.indexOf(HISTORY_END, start);
  // A lost end marker (someone edited the description) means the section runs to the end; it is put back.
  return end < 0 ? { text: body.slice(start), end: body.length, closed: false } : { text: body.slice(start, end), end, closed: true };
}
