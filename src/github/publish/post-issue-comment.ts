import type { IssueRef, Octokit } from "../types.js";

/** A comment GitHub took: its id (to edit it later) and its address. */
export interface PostedComment {
  id: number;
  url: string;
}

/** Posts a comment on an issue or pull request, its body as given (the caller fits it to GitHub's limit); a failure is thrown. */
export async function postIssueComment(octokit: Octokit, issue: IssueRef, body: string): Promise<PostedComment> {
  const { data } = await octokit.rest.issues.createComment({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, body });
  return { id: data.id, url: data.html_url };
}
