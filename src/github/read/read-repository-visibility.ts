import type { Octokit } from "../types.js";

/**
 * Whether the repository is public, asked through the installation `octokit` belongs to: `private` false. An internal
 * repository (GitHub Enterprise) reports `private` true, so it is never taken for a public one.
 */
export async function isRepositoryPublic(octokit: Octokit, repo: { owner: string; repo: string }): Promise<boolean> {
  const { data } = await octokit.rest.repos.get(repo);
  return data.private === false;
}
