import { editPullRequestBody } from "../../../github/publish/edit-pull-request-body.js";
import { replyToReviewComment } from "../../../github/publish/reply-to-review-comment.js";
import { readPullRequest } from "../../../github/read/read-pull-request.js";
import type { Octokit } from "../../../github/types.js";
import type { ReviewComment, RevisionResult } from "../../../pipeline/revise/types.js";
import { appendRevisionHistory, lastRevision, renderHistoryEntry, renderReply } from "./render-answers.js";

/** What the answers to a finished revision need. */
export interface RevisionAnswer {
  pull: { owner: string; repo: string; number: number };
  comments: ReviewComment[];
  result: RevisionResult;
  /** The commit pushed, or null when the revision changed nothing. */
  commit: string | null;
  jobId: number;
  /** Who asked, as the history names them: `@login`, or the failing CI. */
  askedBy: string;
  /** Why nothing changed, when nothing did. */
  note?: string;
}

/**
 * Answers a finished revision on GitHub: one reply in each inline comment's thread (what changed in its file, or why
 * not), and one more entry in the pull request description's revision history. The push has happened by now, so a
 * failed reply is reported and the others still go out.
 */
export async function answerRevision(octokit: Octokit, answer: RevisionAnswer, onError: (error: unknown) => void): Promise<void> {
  const { pull, result, commit } = answer;
  const threads = new Map<number, ReviewComment>();
  for (const c of answer.comments) if (!threads.has(c.threadId)) threads.set(c.threadId, c);
  for (const [threadId, { path, commitId }] of threads) {
    try {
      await replyToReviewComment(octokit, pull, { threadId, commitId, path, body: renderReply(path, result, commit) });
    } catch (error) {
      onError(error);
    }
  }
  try {
    // Read the description afresh: a person, or an earlier revision, may have changed it since the webhook.
    const { body } = await readPullRequest(octokit, pull);
    const entry = renderHistoryEntry({ number: lastRevision(body) + 1, jobId: answer.jobId, askedBy: answer.askedBy, commit, result, note: answer.note });
    await editPullRequestBody(octokit, pull, appendRevisionHistory(body, entry));
  } catch (error) {
    onError(error);
  }
}
