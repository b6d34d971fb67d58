import type { IssueRef, Octokit } from "../types.js";

/** Replaces a pull request's description; a failure is thrown. */
export async function editPullRequestBody(octokit: Octokit, pull: IssueRef, body: string): Promise<void> {
  await octokit.rest.pulls.update({ owner: pull.owner, repo: pull.repo, pull_number: pull.number, body });
}
