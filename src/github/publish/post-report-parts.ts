import { readReportPartMarker, renderReportPart, renderUnusedPart } from "./split-report.js";
import { readIssueComments } from "../read/read-issue-comments.js";
import { editIssueComment } from "./edit-issue-comment.js";
import { postIssueComment } from "./post-issue-comment.js";
import type { Octokit } from "../types.js";

/** The pull request whose report continues in comments, and the bot whose earlier comments may be reused. */
export interface ReportPull {
  owner: string;
  repo: string;
  number: number;
  url: string;
  bot: string;
  /** Whether the pull request may hold the follow-up comments of an earlier report (it was updated, not opened). */
  earlier: boolean;
}

/**
 * Posts the follow-up comments of a pull request's report, in order, and returns their addresses. The bot's comments
 * of an earlier report on the same pull request (found by their markers) are edited in place, and those the new
 * report does not need say so, so a retry leaves no stale part behind.
 */
export async function postReportParts(octokit: Octokit, pull: ReportPull, parts: string[]): Promise<string[]> {
  const found = new Map<number, { id: number; body: string }>();
  if (pull.earlier) {
    for (const comment of await readIssueComments(octokit, pull)) {
      const part = readReportPartMarker(comment.body);
      // Only the bot's own: anyone can paste a marker into a comment, which the bot must never rewrite.
      if (part !== null && comment.author === pull.bot && !found.has(part)) found.set(part, { id: comment.id, body: comment.body });
    }
  }
  const urls: string[] = [];
  for (const [i, text] of parts.entries()) {
    const body = renderReportPart(text, i + 2, parts.length + 1, pull.url);
    const earlier = found.get(i + 2);
    const posted = earlier ? await editIssueComment(octokit, pull, earlier.id, body) : await postIssueComment(octokit, pull, body);
    urls.push(posted.url);
  }
  for (const [part, earlier] of found) {
    const body = renderUnusedPart(part);
    if (part > parts.length + 1 && earlier.body !== body) await editIssueComment(octokit, pull, earlier.id, body);
  }
  return urls;
}
