import type { Octokit } from "../types.js";

/**
 * Whether `username` holds one of the allowed permissions on the repository, by the collaborator-permission API.
 * `role_name` names maintain and triage (which `permission` folds into write and read); a non-collaborator has none.
 */
export async function hasPermission(octokit: Octokit, repo: { owner: string; repo: string }, username: string, allowed: readonly string[]): Promise<boolean> {
  const held = await readPermission(octokit, repo, username);
  return held !== null && (allowed.includes(held.roleName) || allowed.includes(held.permission));
}

/** What the collaborator-permission API says `username` holds on a repository: GitHub's base permission and the role's name. */
export interface HeldPermission {
  /** admin, write, read or none: maintain folds into write, triage into read. */
  permission: string;
  /** admin, maintain, write, triage, read, or an organization's own role. */
  roleName: string;
}

/**
 * What `username` holds on the repository, asked through the installation `octokit` belongs to; null when GitHub
 * answers 404 (not a collaborator of a private repository, or no such user). On a public repository GitHub answers
 * `read` for every account.
 */
export async function readPermission(octokit: Octokit, repo: { owner: string; repo: string }, username: string): Promise<HeldPermission | null> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username });
    return { permission: data.permission, roleName: data.role_name };
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}
