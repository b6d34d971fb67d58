import { encodeFile, type FileEncoding } from "../../edit/file-encoding.js";
import { mapBounded } from "../../lib/map-bounded.js";
import { addBranchTrailer } from "../branches/branch-trailer.js";
import { checkBotBranch } from "../branches/check-bot-branch.js";
import type { Checkout } from "../../git/checkout.js";
import { protectedPathMatcher } from "../../lib/protected-paths.js";
import { resolveInside } from "../../lib/safe-path.js";
import { asRuleRefusal } from "./commit-refused-error.js";
import { moveBranch, type BranchLease } from "../branches/move-branch.js";
import type { Octokit } from "../types.js";

/** Blobs uploaded at once (Octokit's throttling paces writes further). */
const BLOB_UPLOADS = 4;

/** One commit the bot makes through GitHub's Git Data API on top of a checkout's head, and the bot branch it moves there. */
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

/**
 * Makes one commit with the changes on the checkout's head through the Git Data API (blobs, a tree on the head's
 * tree, a commit) and moves the bot branch to it under its lease; returns the commit id. The commit carries no
 * author or committer, so GitHub records the app as its author and signs it (shown as Verified), and its message
 * ends with the `MAGIS-Branch` trailer (see chooseBranch). Every guard is checked before the first request: nothing
 * is sent for a change that would be refused.
 */
export async function commitThroughApi(request: ApiCommitRequest): Promise<string> {
  const { octokit, repo, checkout, guard, branch } = request;
  checkBotBranch(branch, guard.prefix, guard.defaultBranch);
  const files = encodeChanges(checkout.dir, request.changes, guard.protectedPaths);
  const parentTree = checkout.readCommit().tree;
  const entries = checkout.fileEntries([...files.keys()], parentTree);
  const changed: { path: string; bytes: Uint8Array }[] = [];
  for (const [path, bytes] of files) {
    if (checkout.blobId(bytes) !== entries.get(path)?.oid) changed.push({ path, bytes });
  }
  if (changed.length === 0) throw new Error("refusing to commit: the change is empty (the files already have this content)");
  let commit: string;
  try {
    const blobs = await mapBounded(changed, BLOB_UPLOADS, async ({ bytes }) => {
      const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
      return (await octokit.rest.git.createBlob({ ...repo, content, encoding: "base64" })).data.sha;
    });
    const tree = changed.map(({ path }, i) => ({ path, mode: entries.get(path)?.mode ?? "100644", type: "blob" as const, sha: blobs[i]! }));
    const { data: made } = await octokit.rest.git.createTree({ ...repo, base_tree: parentTree, tree });
    // No author or committer: with either, GitHub would not sign the commit.
    const message = addBranchTrailer(request.message, branch);
    commit = (await octokit.rest.git.createCommit({ ...repo, message, tree: made.sha, parents: [checkout.head] })).data.sha;
  } catch (error) {
    throw asRuleRefusal(error, branch);
  }
  await moveBranch(octokit, repo, { repositoryId: request.repositoryId, branch, commit, lease: request.lease });
  return commit;
}

/** Each change's bytes by its normalized path; refuses escapes, `.git`, links out of the checkout, protected files, unencodable text. */
function encodeChanges(dir: string, changes: ApiCommitRequest["changes"], protectedPaths: string[]): Map<string, Uint8Array> {
  const isProtected = protectedPathMatcher(protectedPaths);
  const files = new Map<string, Uint8Array>();
  for (const change of changes) {
    const { relative } = resolveInside(dir, change.path);
    if (isProtected(relative)) {
      throw new Error(`refusing to commit '${relative}': it matches protected_paths in .github/magis.yml`);
    }
    try {
      files.set(relative, encodeFile(change.after, change.encoding));
    } catch (error) {
      throw new Error(`refusing to commit '${relative}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  return files;
}
