import type { ReviewComment } from "../../pipeline/revise/types.js";
import { cleanText } from "../../lib/clean-text.js";
import type { Octokit } from "../types.js";

// Enough for any review a person writes by hand; a bulk tool's thousand comments would not fit a prompt anyway.
const MAX_COMMENTS = 60;
const MAX_COMMENT_CHARS = 4000;
const MAX_HUNK_CHARS = 3000;

/** The pull request a revision works on. */
export interface PullRef {
  owner: string;
  repo: string;
  number: number;
}

/**
 * The inline comments of one review (people's only, cleaned of hidden text): path, line range on the pull request's
 * side, text and diff hunk, with the thread each belongs to. A comment on a removed line keeps its text but names the
 * line of the old version in words, since the file the Developer edits no longer has it.
 */
export async function readReviewComments(octokit: Octokit, pull: PullRef, reviewId: number): Promise<ReviewComment[]> {
  const comments = await octokit.paginate(octokit.rest.pulls.listCommentsForReview, {
    owner: pull.owner,
    repo: pull.repo,
    pull_number: pull.number,
    review_id: reviewId,
    per_page: 100,
  });
  return comments
    .filter((c) => c.user?.type !== "Bot")
    .map(toReviewComment)
    .filter((c): c is ReviewComment => c !== null)
    .slice(0, MAX_COMMENTS);
}

/** The fields of an inline comment, as the API lists them, that a revision reads. */
export interface ApiReviewComment {
  id: number;
  in_reply_to_id?: number;
  path: string;
  commit_id: string;
  line?: number | null;
  start_line?: number | null;
  side?: "LEFT" | "RIGHT";
  subject_type?: "line" | "file";
  body: string;
  diff_hunk?: string;
}

/** One inline comment as the revision reads it (cleaned), or null when nothing is left of its text. */
export function toReviewComment(c: ApiReviewComment): ReviewComment | null {
  const text = cleanText(c.body ?? "").slice(0, MAX_COMMENT_CHARS);
  if (text === "") return null;
  const left = c.side === "LEFT";
  const onFile = c.subject_type === "file" || c.line == null;
  const where = left && c.line != null ? `(on removed line ${c.line} of the old version) ` : "";
  const lines = left || onFile ? {} : { line: c.line!, ...(c.start_line != null && c.start_line !== c.line ? { startLine: c.start_line } : {}) };
  return {
    id: c.id,
    threadId: c.in_reply_to_id ?? c.id,
    path: c.path,
    commitId: c.commit_id,
    ...lines,
    body: `${where}${text}`,
    ...(c.diff_hunk ? { diffHunk: c.diff_hunk.slice(-MAX_HUNK_CHARS) } : {}),
  };
}

/**
 * The latest review by a person that asked for changes or commented, for a bare `/magis revise` (which runs the
 * revision of that review again), or null when there is none. Its text comes back cleaned. With `mayTrigger`, reviews
 * by people it refuses (without the configured permission) are passed over: their words would never start a revision
 * themselves, so a bare `/magis revise` must not feed them to the agents either.
 */
export async function readLatestReview(
  octokit: Octokit,
  pull: PullRef,
  mayTrigger?: (login: string) => Promise<boolean>,
): Promise<{ id: number; body: string; reviewer: string } | null> {
  const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, { owner: pull.owner, repo: pull.repo, pull_number: pull.number, per_page: 100 });
  const candidates = reviews.filter((r) => r.user?.type !== "Bot" && (r.state === "CHANGES_REQUESTED" || r.state === "COMMENTED")).reverse();
  for (const review of candidates) {
    if (mayTrigger && !(review.user?.login && (await mayTrigger(review.user.login)))) continue;
    return { id: review.id, body: cleanText(review.body ?? "").slice(0, MAX_COMMENT_CHARS), reviewer: review.user?.login ?? "someone" };
  }
  return null;
}

/** The files the pull request changes (removed files left out: there is nothing to edit), with their patches. */
export async function readChangedFiles(octokit: Octokit, pull: PullRef): Promise<{ path: string; patch?: string }[]> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, { owner: pull.owner, repo: pull.repo, pull_number: pull.number, per_page: 100 });
  return files.filter((f) => f.status !== "removed").map((f) => ({ path: f.filename, ...(f.patch ? { patch: f.patch } : {}) }));
}
