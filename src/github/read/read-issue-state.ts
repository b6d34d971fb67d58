import type { IssueRef, Octokit } from "../types.js";

/** An issue as it is now: open or closed, and the names of the labels on it. */
export interface IssueState {
  state: string;
  labels: string[];
}

/** Reads whether an issue is still open and which labels it carries now (not as the webhook that queued the run carried them). */
export async function readIssueState(octokit: Octokit, issue: IssueRef): Promise<IssueState> {
  const { data } = await octokit.rest.issues.get({ owner: issue.owner, repo: issue.repo, issue_number: issue.number });
  const labels = (data.labels ?? []).map((l) => (typeof l === "string" ? l : l.name)).filter((name) => name !== undefined);
  return { state: data.state, labels };
}
