import type { Octokit } from "../types.js";

/** Who made a commit and what it says. */
export interface CommitAuthorship {
  /** The GitHub account the commit is attributed to, or undefined when GitHub matched none. */
  authorLogin: string | undefined;
  /** The author's name as the commit records it. */
  authorName: string | undefined;
  message: string;
}

/** Reads a commit of the repository: its GitHub author and its message. */
export async function readCommit(octokit: Octokit, repo: { owner: string; repo: string }, ref: string): Promise<CommitAuthorship> {
  const { data } = await octokit.rest.repos.getCommit({ ...repo, ref });
  return { authorLogin: data.author?.login, authorName: data.commit.author?.name, message: data.commit.message };
}
