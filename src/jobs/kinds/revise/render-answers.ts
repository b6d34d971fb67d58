import { capBody, GITHUB_BODY_LIMIT } from "../../../github/publish/fit-body.js";
import { details, fence, neutralize } from "../../../lib/markdown.js";
import { endSentence } from "../../../lib/end-sentence.js";
import type { RevisionResult } from "../../../pipeline/revise/types.js";
import { verdict } from "./render-status.js";

/** Where the revision history section of a pull request description starts and ends (hidden, so it can be found again). */
export const HISTORY_START = "<!-- magis:revisions -->";
export const HISTORY_END = "<!-- /magis:revisions -->";

/** The most a history entry's note (the Manager's reasons, quoted) takes. */
const NOTE_CHARS = 500;

/**
 * The reply in an inline comment's thread: what was changed in the comment's file and in which commit, or why the
 * file was not changed (the Manager declined it, QA never approved, the edits were refused, nothing was pushed).
 * A diff too long for a comment is cut, and the reply says the commit holds it whole.
 */
export function renderReply(path: string, result: RevisionResult, commit: string | null): string {
  const declined = result.declined.find((d) => d.path === path);
  if (declined) return `ℹ️ I did not change \`${path}\`: ${endSentence(neutralize(declined.reason))}`;
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
  const reply = [
    `✅ Changed \`${path}\` in ${commit.slice(0, 7)} (${attempts}, ${qa}): ${neutralize(task)}`,
    "",
    last?.review?.comment ? `QA: ${neutralize(last.review.comment)}` : "",
    "",
    details(`Diff of \`${path}\``, fence(outcome.diff, "diff")),
  ]
    .filter((line, i, all) => line !== "" || all[i - 1] !== "")
    .join("\n");
  return capBody(reply, `*(The diff is cut here, at GitHub's limit for a comment; ${commit.slice(0, 7)} holds the whole change.)*`);
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
  if (!entry.commit || !result) return `${head} no change — ${clip(neutralize(entry.note ?? "no task produced an approved change"), NOTE_CHARS)}.`;
  const verdicts = result.outcomes.map((o) => `\`${o.path}\` ${verdict(o)}`).join(", ");
  return `${head} ${entry.commit.slice(0, 7)} changes ${result.changes.map((c) => `\`${c.path}\``).join(", ")} (${verdicts}).`;
}

/** The number of the latest revision the description's history lists (0 for none); older entries may have been left out. */
export function lastRevision(body: string): number {
  const section = historySection(body);
  const numbers = [...(section?.text ?? "").matchAll(/^- \*\*Revision (\d+)\*\*/gm)].map((m) => Number(m[1]));
  return Math.max(0, ...numbers);
}

/** The line that stands for the entries left out of a history that reached GitHub's limit. */
const LEFT_OUT = "- *Earlier revisions are left out: the description reached GitHub's limit.*";

/**
 * The description with one more entry in its revision history. The section is appended after the original report the
 * first time and found again by its hidden markers afterwards, so entries accumulate and the report stays as it was.
 * Past GitHub's limit the oldest entries give way; throws when even the new entry alone does not fit.
 */
export function appendRevisionHistory(body: string, entry: string, limit = GITHUB_BODY_LIMIT): string {
  const section = historySection(body);
  if (!section) {
    const appended = `${body.trimEnd()}\n\n${HISTORY_START}\n### Revision history\n\n${entry}\n${HISTORY_END}\n`;
    if (appended.length > limit) throw tooLong(body, limit);
    return appended;
  }
  const before = body.slice(0, section.start).trimEnd();
  const after = section.closed ? body.slice(section.end + HISTORY_END.length) : "\n";
  const lines = section.text.slice(HISTORY_START.length).split("\n");
  const first = lines.findIndex((line) => /^- \*\*Revision \d+\*\*|^- \*Earlier revisions/.test(line));
  const heading = (first < 0 ? lines : lines.slice(0, first)).join("\n").trim() || "### Revision history";
  const listed = splitEntries(first < 0 ? [] : lines.slice(first));
  const entries = listed.filter((e) => e !== LEFT_OUT);
  let leftOut = entries.length < listed.length;
  const render = () => `${before}\n\n${HISTORY_START}\n${heading}\n\n${[...(leftOut ? [LEFT_OUT] : []), ...entries, entry].join("\n")}\n${HISTORY_END}${after}`;
  let text = render();
  while (text.length > limit && entries.length > 0) {
    entries.shift();
    leftOut = true;
    text = render();
  }
  if (text.length > limit) throw tooLong(body, limit);
  return text;
}

/** A history's lines as its entries: each from its `- ` line to the next (a quoted note may span lines). */
function splitEntries(lines: string[]): string[] {
  const entries: string[] = [];
  for (const line of lines) {
    if (line.startsWith("- ") || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += `\n${line}`;
  }
  return entries.map((e) => e.trimEnd()).filter((e) => e !== "");
}

function tooLong(body: string, limit: number): Error {
  return new Error(
    `the revision history was not added: the pull request description is ${body.length.toLocaleString("en-US")} characters, and GitHub takes at most ${limit.toLocaleString("en-US")}; shorten the description by hand`,
  );
}

/** The text cut at a word before `max` characters, with an ellipsis. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), max / 2)).trimEnd()}…`;
}

function historySection(body: string): { text: string; start: number; end: number; closed: boolean } | null {
  const start = body.indexOf(HISTORY_START);
  if (start < 0) return null;
  const end = body.indexOf(HISTORY_END, start);
  // A lost end marker (someone edited the description) means the section runs to the end; it is put back.
  return end < 0 ? { text: body.slice(start), start, end: body.length, closed: false } : { text: body.slice(start, end), start, end, closed: true };
}
