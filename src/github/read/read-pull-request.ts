import type { IssueRef, Octokit } from "../types.js";

/** A pull request as it is now, in the fields the jobs and the triggers decide on. */
export interface PullRequest {
  number: number;
  /** `open` or `closed`. */
  state: string;
  title: string;
  /** The description; empty when it has none. */
  body: string;
  /** Its page on GitHub. */
  url: string;
  /** Who opened it, or undefined when GitHub names no one (a deleted account). */
  author: string | undefined;
  head: {
    ref: string;
    sha: string;
    /** `owner/name` of the repository the branch lives in, or undefined when that fork is gone. */
    repo: string | undefined;
  };
  /** `owner/name` of the repository it would merge into. */
  baseRepo: string;
}

/** Reads a pull request afresh (a person, or an earlier run, may have changed it since the webhook). */
export async function readPullRequest(octokit: Octokit, pull: IssueRef): Promise<PullRequest> {
  const { data } = await octokit.rest.pulls.get({ owner: pull.owner, repo: pull.repo, pull_number: pull.number });
  return {
    number: data.number,
    state: data.state,
    title: data.title,
    body: data.body ?? "",
    url: data.html_url,
    author: data.user?.login,
    head: { ref: data.head.ref, sha: data.head.sha, repo: data.head.repo?.full_name },
    baseRepo: data.base.repo.full_name,
  };
}
