import type { Octokit } from "../types.js";

/** The commit a branch is at, or null when the repository has no branch of that name. */
export async function readBranchHead(octokit: Octokit, repo: { owner: string; repo: string }, branch: string): Promise<string | null> {
  try {
    return (await octokit.rest.repos.getBranch({ ...repo, branch })).data.commit.sha;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}
