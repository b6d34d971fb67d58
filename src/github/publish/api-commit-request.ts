import type { FileEncoding } from "../../edit/file-encoding.js";
import type { Checkout } from "../../git/checkout.js";
import type { BranchLease } from "../branches/move-branch.js";
import type { Octokit } from "../types.js";

/** One commit the bot makes through GitHub's API on top of a checkout's head, and the bot branch it moves there. */
export interface ApiCommitRequest {
  octokit: Octokit;
  repo: { owner: string; repo: string };
  /** The repository's GraphQL node id (`node_id` of GET /repos/{owner}/{repo}), by which updateRefs names it. */
  repositoryId: string;
  /** The commit's parent is the checkout's head; its tree gives each changed file's mode. */
  checkout: Checkout;
  branch: string;
  /** Files with their complete new text and the encoding the file is written in (the one it was read in). */
  changes: { path: string; after: string; encoding: FileEncoding }[];
  message: string;
  /** Where the branch must be when it is moved to the new commit. */
  lease: BranchLease;
  /** What the commit must never touch: the default branch, branches without the prefix, protected files. */
  guard: { prefix: string; defaultBranch: string; protectedPaths: string[] };
}
