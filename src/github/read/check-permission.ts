import type { Octokit } from "../types.js";

/**
 * Whether `username` holds one of the allowed permissions on the repository, by the collaborator-permission API.
 * `role_name` names maintain and triage (which `permission` folds into write and read); a non-collaborator has none.
 */
export async function hasPermission(octokit: Octokit, repo: { owner: string; repo: string }, username: string, allowed: readonly string[]): Promise<boolean> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username });
    return allowed.includes(data.role_name) || allowed.includes(data.permission);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}
