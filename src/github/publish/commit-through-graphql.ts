import { BranchMovedError } from "../branches/move-branch.js";
import { readBranchHead } from "../branches/read-branch-head.js";
import type { ApiCommitRequest } from "./api-commit-request.js";
import type { CommitFile } from "./choose-commit-route.js";
import { CommitRefusedError, describeRefusal } from "./commit-refused-error.js";
import type { Octokit } from "../types.js";

const NO_COMMIT = "0".repeat(40);

// One request, however many files. A branch not there yet is created at the parent first, in the same document:
// GitHub runs a document's mutations one after the other, and createCommitOnBranch needs an existing branch.
const COMMIT = `mutation($commit: CreateCommitOnBranchInput!) { commit: createCommitOnBranch(input: $commit) { commit { oid } } }`;
const CREATE_AND_COMMIT = `mutation($repositoryId: ID!, $create: [RefUpdate!]!, $commit: CreateCommitOnBranchInput!) { branch: updateRefs(input: {repositoryId: $repositoryId, refUpdates: $create}) { clientMutationId } commit: createCommitOnBranch(input: $commit) { commit { oid } } }`;
// A new branch's pull request is opened in that document too, after the commit: one write for the whole publish. Were
// the commit refused, the pull request would be too (its branch has no commit beyond the base).
const CREATE_COMMIT_AND_PULL = `mutation($repositoryId: ID!, $create: [RefUpdate!]!, $commit: CreateCommitOnBranchInput!, $pull: CreatePullRequestInput!) { branch: updateRefs(input: {repositoryId: $repositoryId, refUpdates: $create}) { clientMutationId } commit: createCommitOnBranch(input: $commit) { commit { oid } } pull: createPullRequest(input: $pull) { pullRequest { number url } } }`;
const UPDATE_REFS = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!) { updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } }`;

/** A pull request to open from a new branch in the same request as the branch's commit. */
export interface PullToOpen {
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

/** The pull request opened with the commit, or GitHub's reason for refusing it (the commit is on the branch then). */
export type OpenedPull = { number: number; url: string } | { refused: string[] };

/** The commit made, and the pull request opened with it (null when none was asked for or the branch existed). */
export interface GraphqlCommit {
  commit: string;
  pull: OpenedPull | null;
}

type Answer = { branch?: unknown; commit?: { commit: { oid: string } } | null; pull?: { pullRequest: { number: number; url: string } } | null };
/** How Octokit throws a GraphQL answer that carries `errors`: each error with the path of its mutation (`branch`, `commit`, `pull`). */
type Refusal = { errors: { message?: string; path?: (string | number)[] }[]; data?: Answer };

/**
 * Makes the commit with one GraphQL createCommitOnBranch on the branch's head (`expectedHeadOid`, GitHub's own check
 * that the branch is where the lease says), carrying each file's whole bytes in base64, binary or any encoding alike.
 * GitHub records the credential's owner (the app) as author and signs the commit. A branch that must not exist yet
 * (lease head null) is created at the parent in the same request, and `pull`, when given, opened from it after the
 * commit; if the commit fails, the empty branch is deleted again. Returns the commit's id and the pull request.
 */
export async function commitThroughGraphql(
  request: ApiCommitRequest,
  files: readonly CommitFile[],
  message: string,
  pull: PullToOpen | null = null,
): Promise<GraphqlCommit> {
  const { octokit, repo, branch, lease, repositoryId } = request;
  const parent = request.checkout.head;
  const [headline, ...rest] = message.split("\n");
  const commit = {
    branch: { repositoryNameWithOwner: `${repo.owner}/${repo.repo}`, branchName: branch },
    expectedHeadOid: parent,
    message: { headline: headline!, body: rest.join("\n").replace(/^\n+/, "") },
    fileChanges: {
      additions: files.map(({ path, bytes }) => ({ path, contents: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") })),
    },
  };
  const creates = lease.head === null;
  const opens = creates && pull !== null;
  const create = [{ name: `refs/heads/${branch}`, beforeOid: NO_COMMIT, afterOid: parent }];
  const openPull = opens && { repositoryId, baseRefName: pull.base, headRefName: branch, title: pull.title, body: pull.body, draft: pull.draft };
  try {
    const answer = openPull
      ? await octokit.graphql<Answer>(CREATE_COMMIT_AND_PULL, { repositoryId, create, commit, pull: openPull })
      : creates
        ? await octokit.graphql<Answer>(CREATE_AND_COMMIT, { repositoryId, create, commit })
        : await octokit.graphql<Answer>(COMMIT, { commit });
    return { commit: answer.commit!.commit.oid, pull: opens ? answer.pull!.pullRequest : null };
  } catch (error) {
    // GitHub answers a refused mutation with HTTP 200 and `errors`; anything else (a timeout, a 5xx) is no verdict.
    const { errors, data } = error as Partial<Refusal>;
    if (!Array.isArray(errors)) throw error;
    const made = data?.commit?.commit.oid;
    const created = creates && data?.branch != null;
    // Only the pull request refused: the branch and its commit stand, and the caller says why it has no pull request.
    if (made && created) return { commit: made, pull: { refused: errors.map((e) => e.message ?? "") } };
    if (made) {
      // The branch was not free but sat at the parent (someone created it meanwhile): take the commit back off it. A
      // pull request opened from it meanwhile closes as its branch goes back to the base, as GitHub closes any.
      await moveRef(octokit, repositoryId, branch, { beforeOid: made, afterOid: parent, force: true });
      throw new BranchMovedError(branch, lease, parent);
    }
    if (created) await moveRef(octokit, repositoryId, branch, { beforeOid: parent, afterOid: NO_COMMIT }).catch(() => undefined);
    // When the branch could not be created, the commit's own error (no such branch) says nothing more.
    const telling = creates && !created ? errors.filter((e) => e.path?.[0] === "branch") : errors;
    throw await explainRefusal(
      request,
      telling.map((e) => e.message ?? ""),
      created,
    );
  }
}

/** Why the commit was refused, from where the branch is now: moved by someone (BranchMovedError), or refused by a rule. */
async function explainRefusal(request: ApiCommitRequest, messages: string[], created: boolean): Promise<Error> {
  const { octokit, repo, branch, lease } = request;
  const found = await readBranchHead(octokit, repo, branch);
  // A branch the bot created and deleted again is where its lease said: absent.
  const expected = created ? null : lease.head;
  if (found !== expected) return new BranchMovedError(branch, lease, found);
  return new CommitRefusedError(branch, describeRefusal(messages));
}

/** One ref update through updateRefs (a compare-and-swap at beforeOid). */
async function moveRef(
  octokit: Octokit,
  repositoryId: string,
  branch: string,
  update: { beforeOid: string; afterOid: string; force?: boolean },
): Promise<void> {
  await octokit.graphql(UPDATE_REFS, { repositoryId, refUpdates: [{ name: `refs/heads/${branch}`, force: false, ...update }] });
}
