import { mapBounded } from "../../lib/map-bounded.js";
import { moveBranch } from "../branches/move-branch.js";
import type { ApiCommitRequest } from "./api-commit-request.js";
import type { CommitFile } from "./choose-commit-route.js";
import { asRuleRefusal } from "./commit-refused-error.js";

/** Blobs uploaded at once (Octokit's throttling paces writes further). */
const BLOB_UPLOADS = 4;

/**
 * Makes the commit through the Git Data API — a blob per file, a tree on the parent's tree keeping each file's mode, a
 * commit without author or committer (so GitHub signs it) — and moves the branch to it under its lease: n + 3 writes.
 * Returns the commit's id.
 */
export async function commitThroughGitData(request: ApiCommitRequest, files: readonly CommitFile[], message: string): Promise<string> {
  const { octokit, repo, checkout, branch } = request;
  let commit: string;
  try {
    const blobs = await mapBounded(files, BLOB_UPLOADS, async ({ bytes }) => {
      const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
      return (await octokit.rest.git.createBlob({ ...repo, content, encoding: "base64" })).data.sha;
    });
    const tree = files.map(({ path, mode }, i) => ({ path, mode: mode ?? "100644", type: "blob" as const, sha: blobs[i]! }));
    const { data: made } = await octokit.rest.git.createTree({ ...repo, base_tree: checkout.readCommit().tree, tree });
    // No author or committer: with either, GitHub would not sign the commit.
    commit = (await octokit.rest.git.createCommit({ ...repo, message, tree: made.sha, parents: [checkout.head] })).data.sha;
  } catch (error) {
    throw asRuleRefusal(error, branch);
  }
  await moveBranch(octokit, repo, { repositoryId: request.repositoryId, branch, commit, lease: request.lease });
  return commit;
}
