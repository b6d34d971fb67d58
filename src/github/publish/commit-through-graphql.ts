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
const UPDATE_REFS = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!) { updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } }`;

type Answer = { branch?: unknown; commit?: { commit: { oid: string } } | null };
/** How Octokit throws a GraphQL answer that carries `errors`: each error with the path of its mutation (`branch`, `commit`). */
type Refusal = { errors: { message?: string; path?: (string | number)[] }[]; data?: Answer };

/**
 * Makes the commit with one GraphQL createCommitOnBranch on the branch's head (`expectedHeadOid`, GitHub's own check
 * that the branch is where the lease says), carrying each file's whole bytes in base64, binary or any encoding alike.
 * GitHub records the credential's owner (the app) as author and signs the commit. A branch that must not exist yet
 * (lease head null) is created at the parent in the same request; if its commit then fails, the empty branch is
 * deleted again. Returns the commit's id.
 */
export async function commitThroughGraphql(request: ApiCommitRequest, files: readonly CommitFile[], message: string): Promise<string> {
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
  try {
    const answer = creates
      ? await octokit.graphql<Answer>(CREATE_AND_COMMIT, {
          repositoryId,
          create: [{ name: `refs/heads/${branch}`, beforeOid: NO_COMMIT, afterOid: parent }],
          commit,
        })
      : await octokit.graphql<Answer>(COMMIT, { commit });
    return answer.commit!.commit.oid;
  } catch (error) {
    // GitHub answers a refused mutation with HTTP 200 and `errors`; anything else (a timeout, a 5xx) is no verdict.
    const { errors, data } = error as Partial<Refusal>;
    if (!Array.isArray(errors)) throw error;
    const made = data?.commit?.commit.oid;
    const created = creates && data?.branch != null;
    if (made) {
      // The branch was not free but sat at the parent (someone created it meanwhile): take the commit back off it.
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
