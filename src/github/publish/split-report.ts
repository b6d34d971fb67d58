import { splitMarkdown } from "../../lib/split-markdown.js";
import { GITHUB_BODY_LIMIT } from "./fit-body.js";

/** How a report too long for a pull request's description is laid out: its share there, and its follow-up comments. */
export const REPORT_LAYOUT = {
  /** The report's share of the description, from its start. */
  head: 57_000,
  /** The links to the follow-up comments after it (at most `maxParts`, ≤ 250 characters each). The rest of GitHub's
   *  limit (6,036 characters) is for the revision history that revisions append. */
  links: 2_500,
  /** A follow-up comment's share, leaving room for its heading and the note on a report cut short. */
  part: GITHUB_BODY_LIMIT - 1_000,
  /** Follow-up comments at most; a longer report is cut at the end of the last, which says so. */
  maxParts: 10,
};

/** A report split for a pull request: the description's part, and the follow-up comments' parts in order. */
export interface SplitReport {
  head: string;
  parts: string[];
}

/**
 * Splits a report (the pull request description) into what stays in the description — whole sections from the
 * start: the summary, the plan, the task table with the QA verdicts — and the parts that follow in comments, in
 * order, each within GitHub's limit with its heading (renderReportPart); never inside a fence.
 */
export function splitReport(report: string): SplitReport {
  if (report.length <= REPORT_LAYOUT.head) return { head: report, parts: [] };
  const [head, ...parts] = splitMarkdown(report, { first: REPORT_LAYOUT.head, rest: REPORT_LAYOUT.part, wholeFirst: true });
  if (parts.length <= REPORT_LAYOUT.maxParts) return { head: head!, parts };
  const kept = parts.slice(0, REPORT_LAYOUT.maxParts);
  const left = parts.length - kept.length;
  kept[kept.length - 1] +=
    `\n\n*The report goes on for ${left} more part${left === 1 ? "" : "s"}, left out: the bot posts at most ${REPORT_LAYOUT.maxParts} comments for one report.*`;
  return { head: head!, parts: kept };
}

/**
 * The description: the report's head, then where the rest is — the follow-up comments' links once they are posted,
 * or how many follow below until then. With links too long for their room, the first link alone.
 */
export function renderDescription(head: string, parts: number, links: string[] = []): string {
  if (parts === 0) return head;
  const start = `${head.trimEnd()}\n\n---\n\n*The rest of this report is in ${parts} comment${parts === 1 ? "" : "s"}`;
  if (links.length === 0) return `${start} below.*\n`;
  const all = `${start}: ${links.map((url, i) => `[part ${i + 2}](${url})`).join(", ")}.*\n`;
  return all.length - head.length <= REPORT_LAYOUT.links ? all : `${start} below, from [part 2](${links[0]}) on.*\n`;
}

/** The hidden marker that finds a report's follow-up comment again (`part` 2 is the first comment). */
export function reportPartMarker(part: number): string {
  return `<!-- magis:report-part ${part} -->`;
}

/** Reads the part number back from a comment body that starts with a report part's marker, or null. */
export function readReportPartMarker(body: string | null | undefined): number | null {
  const match = /^<!-- magis:report-part (\d+) -->/.exec(body ?? "");
  return match ? Number(match[1]) : null;
}

/** A follow-up comment: its marker, which part of how many it is, a link back to the description, and its text. */
export function renderReportPart(text: string, part: number, of: number, pullUrl: string): string {
  return `${reportPartMarker(part)}\n**MAGIS report, part ${part} of ${of}** (continued from the [description](${pullUrl}))\n\n${text}`;
}

/** What a follow-up comment of an earlier report says once the newer report no longer needs it. */
export function renderUnusedPart(part: number): string {
  return `${reportPartMarker(part)}\n*This part of an earlier MAGIS report is no longer used: the description holds the newer report.*`;
}
