import type { MagisConfig } from "../../config.js";
import { StageError } from "../../pipeline/errors.js";
import type { Octokit } from "../types.js";

/** Where a job clones from, what the repository's default branch is, and how GraphQL names it. */
export interface OpenedRepository {
  /** The clone URL (the API's clone_url, or the same path under `gitBaseUrl`). */
  url: string;
  defaultBranch: string;
  /** The repository's GraphQL node id, by which the bot's commits move its branches (updateRefs). */
  nodeId: string;
}

/**
 * Reads the repository and refuses one over `max_repo_mb` before anything is cloned (a clone holds its whole pack
 * in memory). `gitBaseUrl` replaces the clone URL's origin (GitHub Enterprise, a local git server in tests).
 */
export async function openRepository(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  options: { config: MagisConfig; gitBaseUrl: string | undefined; rerunCommand: string },
): Promise<OpenedRepository> {
  const { config, gitBaseUrl } = options;
  const { data: repository } = await octokit.rest.repos.get(repo);
  const sizeMb = repository.size / 1024;
  if (sizeMb > config.max_repo_mb) {
    throw new StageError(
      "clone",
      `The repository is about ${Math.ceil(sizeMb)} MB, over the limit of ${config.max_repo_mb} MB (max_repo_mb), so it was not cloned.`,
      `Raise \`max_repo_mb\` in \`.github/magis.yml\` if the app's machine has the memory for it, then comment \`${options.rerunCommand}\`.`,
    );
  }
  const url = gitBaseUrl ? `${gitBaseUrl.replace(/\/$/, "")}/${repository.full_name}.git` : repository.clone_url;
  return { url, defaultBranch: repository.default_branch, nodeId: repository.node_id };
}

/**
 * Most bytes of pack a clone may receive: twice `max_repo_mb`, since GitHub sizes the whole history, which
 * compresses better than one commit's files alone. A server sending more fails the clone instead of the process.
 */
export function packLimit(config: MagisConfig): number {
  return 2 * config.max_repo_mb * 2 ** 20;
}
