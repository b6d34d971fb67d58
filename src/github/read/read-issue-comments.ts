import type { IssueRef, Octokit } from "../types.js";

/** A comment on an issue or pull request. */
export interface IssueComment {
  id: number;
  /** Its text; empty when it has none. */
  body: string;
  /** Who wrote it, or undefined when GitHub names no one (a deleted account). */
  author: string | undefined;
  /** Whether a bot account wrote it (an app, the Actions bot). */
  byBot: boolean;
  /** Its address on GitHub. */
  url: string;
}

/** Reads every comment of an issue or pull request, oldest first, a hundred a page. */
export async function readIssueComments(octokit: Octokit, issue: IssueRef): Promise<IssueComment[]> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: issue.owner,
    repo: issue.repo,
    issue_number: issue.number,
    per_page: 100,
  });
  return comments.map((c) => ({ id: c.id, body: c.body ?? "", author: c.user?.login, byBot: c.user?.type === "Bot", url: c.html_url }));
}
