import { encodeFile } from "../../edit/file-encoding.js";
import { addBranchTrailer } from "../branches/branch-trailer.js";
import { checkBotBranch } from "../branches/check-bot-branch.js";
import type { PullUpdate } from "../branches/move-branch.js";
import { protectedPathMatcher } from "../../lib/protected-paths.js";
import { resolveInside } from "../../lib/safe-path.js";
import type { ApiCommitRequest } from "./api-commit-request.js";
import { chooseCommitRoute, type CommitFile } from "./choose-commit-route.js";
import { commitThroughGitData } from "./commit-through-git-data.js";
import { commitThroughGraphql, type GraphqlCommit, type PullToOpen } from "./commit-through-graphql.js";

export type { ApiCommitRequest };
export type { OpenedPull, PullToOpen } from "./commit-through-graphql.js";

/**
 * Makes one commit with the changes on the checkout's head through GitHub's API and leaves the bot branch there under
 * its lease; returns the commit id. The commit carries no author or committer, so GitHub records the app as its author
 * and signs it (shown as Verified), and its message ends with the `MAGIS-Branch` trailer (see chooseBranch). It goes
 * as one GraphQL createCommitOnBranch where that can carry it, else through the Git Data API (chooseCommitRoute says
 * when). Every guard is checked before the first request: nothing is sent for a change that would be refused.
 */
export async function commitThroughApi(request: ApiCommitRequest): Promise<string> {
  return (await commitAndOpenPull(request, null)).commit;
}

/**
 * Makes the commit as commitThroughApi does, and opens `pull` from a new branch in the same GraphQL request where the
 * commit goes through GraphQL, or updates the branch's open pull request (`update`) in the request that moves the
 * branch where it goes through the Git Data API; `pull` in the answer is null where neither was done (the caller
 * opens or updates it itself).
 */
export async function commitAndOpenPull(request: ApiCommitRequest, pull: PullToOpen | null, update?: PullUpdate): Promise<GraphqlCommit> {
  const { checkout, guard, branch } = request;
  checkBotBranch(branch, guard.prefix, guard.defaultBranch);
  const files = encodeChanges(checkout.dir, request.changes, guard.protectedPaths);
  const entries = checkout.fileEntries([...files.keys()]);
  const changed: CommitFile[] = [];
  for (const [path, bytes] of files) {
    const entry = entries.get(path);
    if (checkout.blobId(bytes) !== entry?.oid) changed.push({ path, bytes, ...(entry && { mode: entry.mode }) });
  }
  if (changed.length === 0) throw new Error("refusing to commit: the change is empty (the files already have this content)");
  const message = addBranchTrailer(request.message, branch);
  const route = chooseCommitRoute(changed, checkout.head, request.lease);
  if (route.route === "graphql") return commitThroughGraphql(request, changed, message, pull);
  return commitThroughGitData(request, changed, message, update);
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
