import { mapBounded } from "../../lib/map-bounded.js";
import { moveBranch, type PullUpdate, type UpdatedPull } from "../branches/move-branch.js";
import type { ApiCommitRequest } from "./api-commit-request.js";
import type { CommitFile } from "./choose-commit-route.js";
import { asRuleRefusal } from "./commit-refused-error.js";

/** Blobs uploaded at once (Octokit's throttling paces writes further). */
const BLOB_UPLOADS = 4;

/** A tree entry of the new commit: the text itself (GitHub writes the blob), or a blob uploaded before. */
type TreeEntry = { path: string; mode: NonNullable<CommitFile["mode"]>; type: "blob" } & ({ content: string } | { sha: string });

/**
 * Makes the commit through the Git Data API — a tree on the parent's tree keeping each file's mode, a commit without
 * author or committer (so GitHub signs it) — and moves the branch to it under its lease. A UTF-8 text file goes inside
 * the tree request as its `content`; only the others (binary, another encoding, a byte-order mark) are uploaded as blobs first, since
 * `content` is a JSON string that GitHub writes out as UTF-8: 3 writes, and one more per such file. The branch's open
 * pull request, when given, is updated in the move's own request (see moveBranch). Returns the commit's id, and the
 * pull request updated (null when none was given).
 */
export async function commitThroughGitData(
  request: ApiCommitRequest,
  files: readonly CommitFile[],
  message: string,
  pull?: PullUpdate,
): Promise<{ commit: string; pull: UpdatedPull | null }> {
  const { octokit, repo, checkout, branch } = request;
  let commit: string;
  try {
    const tree = await mapBounded(files, BLOB_UPLOADS, async ({ path, mode, bytes }): Promise<TreeEntry> => {
      const entry = { path, mode: mode ?? ("100644" as const), type: "blob" as const };
      const text = readUtf8Text(bytes);
      if (text !== null) return { ...entry, content: text };
      const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
      return { ...entry, sha: (await octokit.rest.git.createBlob({ ...repo, content, encoding: "base64" })).data.sha };
    });
    const { data: made } = await octokit.rest.git.createTree({ ...repo, base_tree: checkout.readCommit().tree, tree });
    // No author or committer: with either, GitHub would not sign the commit.
    commit = (await octokit.rest.git.createCommit({ ...repo, message, tree: made.sha, parents: [checkout.head] })).data.sha;
  } catch (error) {
    throw asRuleRefusal(error, branch);
  }
  const updated = await moveBranch(octokit, repo, { repositoryId: request.repositoryId, branch, commit, lease: request.lease }, pull);
  return { commit, pull: updated };
}

/** The bytes of a UTF-8 byte-order mark. */
const BOM = [0xef, 0xbb, 0xbf];

/**
 * The file's text when its bytes are UTF-8 that comes back byte for byte from the string, hold no NUL (a binary file's
 * sign) and start with no byte-order mark (which a reader of the JSON may drop); null otherwise.
 */
function readUtf8Text(bytes: Uint8Array): string | null {
  if (bytes.includes(0) || BOM.every((byte, i) => bytes[i] === byte)) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}
