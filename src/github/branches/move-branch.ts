import { CommitRefusedError, describeRefusal } from "../publish/commit-refused-error.js";
import { readBranchHead } from "./read-branch-head.js";
import type { Octokit } from "../types.js";

/** The `beforeOid` of a ref that must not exist yet. */
const NO_COMMIT = "0".repeat(40);

// GraphQL's updateRefs is a true compare-and-swap (the ref moves only if it is at beforeOid); REST's PATCH /git/refs has none.
const UPDATE_REFS = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!) { updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } }`;

/**
 * Where a branch must be for the bot to move it, checked by GitHub in the same step as the move: `head` null for a
 * branch that must not exist yet; otherwise its commit, replaced whole with `force` (a bot branch whose commits were
 * all checked to be the bot's), or built upon without (the new commit's parent is `head`).
 */
export interface BranchLease {
  head: string | null;
  force: boolean;
}

/** The branch was not where its lease said when the bot moved it: someone pushed to it, created it or deleted it meanwhile. */
export class BranchMovedError extends Error {
  constructor(
    readonly branch: string,
    readonly lease: BranchLease,
    /** Where the branch is now (null: it does not exist). */
    readonly found: string | null,
  ) {
    super(describeMove(branch, lease, found));
    this.name = "BranchMovedError";
  }
}

/** One move of a bot branch: which branch, to which commit, under which lease. */
export interface BranchMove {
  /** The repository's GraphQL node id, by which updateRefs names it. */
  repositoryId: string;
  branch: string;
  /** The commit the branch moves to. */
  commit: string;
  lease: BranchLease;
}

/**
 * Moves `branch` to `commit` through GraphQL's updateRefs, under `lease`.
 * A refusal is explained from where the branch is afterwards: moved (BranchMovedError), or refused by a rule (CommitRefusedError).
 */
export async function moveBranch(octokit: Octokit, repo: { owner: string; repo: string }, move: BranchMove): Promise<void> {
  const { repositoryId, branch, commit, lease } = move;
  const refUpdates = [{ name: `refs/heads/${branch}`, afterOid: commit, beforeOid: lease.head ?? NO_COMMIT, force: lease.force }];
  try {
    await octokit.graphql(UPDATE_REFS, { repositoryId, refUpdates });
  } catch (error) {
    // GitHub answers a refused mutation with HTTP 200 and `errors`; anything else (a timeout, a 5xx) is no verdict.
    const errors = (error as { errors?: { message?: string }[] }).errors;
    if (!Array.isArray(errors)) throw error;
    // GitHub's words for a failed lease vary; where the branch is now says exactly what happened.
    const found = await readBranchHead(octokit, repo, branch);
    if (found !== lease.head) throw new BranchMovedError(branch, lease, found);
    throw new CommitRefusedError(branch, describeRefusal(errors.map((e) => e.message ?? "")));
  }
}

function describeMove(branch: string, lease: BranchLease, found: string | null): string {
  const short = (oid: string) => oid.slice(0, 7);
  if (lease.head === null) {
    return `refusing to create '${branch}': a branch of that name appeared at ${short(found!)} after it was found free, so someone else's commits may be on it; run again to choose the branch anew`;
  }
  if (lease.force) {
    return found === null
      ? `refusing to force-push '${branch}': it was deleted after it was checked at ${short(lease.head)}; run again to publish on a new branch`
      : `refusing to force-push '${branch}': it moved to ${short(found)} after it was checked at ${short(lease.head)}, so someone else's commits may be on it now`;
  }
  return found === null
    ? `refusing to update '${branch}': it was deleted after MAGIS read it at ${short(lease.head)}, and MAGIS does not create it again`
    : `refusing to update '${branch}': it moved to ${short(found)} after MAGIS read it at ${short(lease.head)}, and the bot never force-pushes`;
}
