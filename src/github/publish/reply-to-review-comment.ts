import type { IssueRef, Octokit } from "../types.js";

/** A reply in an inline review thread: the thread's first comment, and the commit and file it was made on. */
export interface ThreadReply {
  threadId: number;
  commitId: string;
  path: string;
  body: string;
}

/** Replies in an inline review comment's thread of a pull request; a failure is thrown. */
export async function replyToReviewComment(octokit: Octokit, pull: IssueRef, reply: ThreadReply): Promise<void> {
  // A reply is a review comment `in_reply_to` the thread's first: the route GitHub lists for apps. The
  // …/comments/{id}/replies route is marked unavailable to GitHub Apps in every one of GitHub's descriptions.
  await octokit.rest.pulls.createReviewComment({
    owner: pull.owner,
    repo: pull.repo,
    pull_number: pull.number,
    in_reply_to: reply.threadId,
    commit_id: reply.commitId,
    path: reply.path,
    body: reply.body,
  });
}
