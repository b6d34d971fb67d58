import type { Octokit } from "../types.js";
import type { PostedComment } from "./post-issue-comment.js";

/** Replaces the body of a comment on an issue or pull request; a failure is thrown. */
export async function editIssueComment(octokit: Octokit, repo: { owner: string; repo: string }, commentId: number, body: string): Promise<PostedComment> {
  const { data } = await octokit.rest.issues.updateComment({ owner: repo.owner, repo: repo.repo, comment_id: commentId, body });
  return { id: data.id, url: data.html_url };
}
