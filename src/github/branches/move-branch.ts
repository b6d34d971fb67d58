import { CommitRefusedError, describeRefusal } from "../publish/commit-refused-error.js";
import { readBranchHead } from "./read-branch-head.js";
import type { Octokit } from "../types.js";

/** The `beforeOid` of a ref that must not exist yet. */
const NO_COMMIT = "0".repeat(40);

// GraphQL's updateRefs is a true compare-and-swap (the ref moves only if it is at beforeOid); REST's PATCH /git/refs has none.
const UPDATE_REFS = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!) { updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } }`;
// The branch's pull request updated in the same document, after the move: one write for both under GitHub's pacing.
const UPDATE_REFS_AND_PULL = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!, $pull: UpdatePullRequestInput!) { branch: updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } pull: updatePullRequest(input: $pull) { pullRequest { number url } } }`;

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

/** The open pull request of the branch, given its new title and description, and what it showed before (put back if the move fails). */
export interface PullUpdate {
  /** Its GraphQL node id (`node_id`). */
  id: string;
  number: number;
  title: string;
  body: string;
  before: { title: string; body: string | null };
}

/** The pull request updated with the move, or GitHub's reason for refusing only that (the branch moved). */
export type UpdatedPull = { number: number; url: string } | { refused: string[] };

type Answer = { branch?: unknown; pull?: { pullRequest: { number: number; url: string } } | null };

/**
 * Moves `branch` to `commit` through GraphQL's updateRefs, under `lease`, and updates `pull` in the same request when
 * given. A refusal is explained from where the branch is afterwards: moved (BranchMovedError), or refused by a rule
 * (CommitRefusedError). GitHub runs a document's mutations one after the other whatever the first answered, so a pull
 * request updated although the branch did not move is given its title and description back.
 */
export async function moveBranch(octokit: Octokit, repo: { owner: string; repo: string }, move: BranchMove, pull?: PullUpdate): Promise<UpdatedPull | null> {
  const { repositoryId, branch, commit, lease } = move;
  const refUpdates = [{ name: `refs/heads/${branch}`, afterOid: commit, beforeOid: lease.head ?? NO_COMMIT, force: lease.force }];
  try {
    if (!pull) {
      await octokit.graphql(UPDATE_REFS, { repositoryId, refUpdates });
      return null;
    }
    // What a refused move gives back is the text just before it: a person may have edited it since it was first read.
    pull = { ...pull, before: await readPullText(octokit, repo, pull) };
    const answer = await octokit.graphql<Answer>(UPDATE_REFS_AND_PULL, {
      repositoryId,
      refUpdates,
      pull: { pullRequestId: pull.id, title: pull.title, body: pull.body },
    });
    return answer.pull!.pullRequest;
  } catch (error) {
    // GitHub answers a refused mutation with HTTP 200 and `errors`; anything else (a timeout, a 5xx) is no verdict.
    const { errors, data } = error as { errors?: { message?: string }[]; data?: Answer };
    if (!Array.isArray(errors)) throw error;
    if (pull && data?.branch != null) return { refused: errors.map((e) => e.message ?? "") };
    const leftOver = pull && data?.pull != null ? await putPullBack(octokit, repo, pull) : null;
    // GitHub's words for a failed lease vary; where the branch is now says exactly what happened.
    const found = await readBranchHead(octokit, repo, branch);
    const refusal =
      found !== lease.head ? new BranchMovedError(branch, lease, found) : new CommitRefusedError(branch, describeRefusal(errors.map((e) => e.message ?? "")));
    // Said with why the branch did not move, which it must not hide: the pull request describes a change not on it.
    if (leftOver) refusal.message += `; ${leftOver}`;
    throw refusal;
  }
}

/** The pull request's title and description as they are now; as first read when GitHub does not answer (a read only narrows the window). */
async function readPullText(octokit: Octokit, repo: { owner: string; repo: string }, pull: PullUpdate): Promise<PullUpdate["before"]> {
  try {
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: pull.number });
    return { title: data.title, body: data.body };
  } catch {
    return pull.before;
  }
}

/**
 * Gives the pull request its title and description back. Null when done; else what the pull request shows instead and
 * what to do, since GitHub's reason is told with why the branch did not move rather than thrown.
 */
async function putPullBack(octokit: Octokit, repo: { owner: string; repo: string }, pull: PullUpdate): Promise<string | null> {
  const { title, body } = pull.before;
  try {
    await octokit.rest.pulls.update({ ...repo, pull_number: pull.number, title, body: body ?? "" });
    return null;
  } catch (error) {
    const why = (error as Error).message.split("\n")[0];
    return `pull request #${pull.number} now describes this run's change, which is not on the branch, and its title and description could not be put back (${why}): edit them back by hand`;
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
