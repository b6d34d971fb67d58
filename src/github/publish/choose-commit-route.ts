import type { BranchLease } from "../branches/move-branch.js";
import type { FileEntry } from "../../git/read-file-entries.js";

/** A file of the commit: its path, its new bytes, and its mode in the parent's tree (absent: a new file). */
export interface CommitFile {
  path: string;
  bytes: Uint8Array;
  mode?: FileEntry["mode"];
}

/**
 * How the commit reaches GitHub: `graphql` is one createCommitOnBranch (a branch still to be created is created in the
 * same request); `git-data` is blobs, a tree, a commit and updateRefs (n + 3 writes), with `why` it must be.
 */
export type CommitRoute = { route: "graphql" } | { route: "git-data"; why: string };

/** The one mode createCommitOnBranch writes: its FileAddition has path and contents, no mode. */
const REGULAR_FILE = "100644";

/**
 * The route for a commit of `files` on `parent` under `lease`, in this order:
 * 1. A file whose mode is not a regular file's (an executable, 100755) goes through the Git Data API, since
 *    createCommitOnBranch writes every file it is given as 100644 and would drop the executable bit. (Links and
 *    submodules never get here: the commit refuses them before.)
 * 2. A branch at another commit than the parent (the bot's own branch, replaced whole under a forced lease) goes
 *    through the Git Data API: createCommitOnBranch only appends to a branch's head, and moving an open pull
 *    request's branch back to the base first would make GitHub close that pull request for good.
 * 3. Anything else — a new branch, a revision on the head it cloned — is one createCommitOnBranch.
 */
export function chooseCommitRoute(files: readonly CommitFile[], parent: string, lease: BranchLease): CommitRoute {
  const moded = files.filter((f) => f.mode !== undefined && f.mode !== REGULAR_FILE);
  if (moded.length > 0) {
    const named = moded.map((f) => `'${f.path}' (${f.mode})`).join(", ");
    return { route: "git-data", why: `createCommitOnBranch would write ${named} as 100644` };
  }
  if (lease.head !== null && lease.head !== parent) {
    return { route: "git-data", why: "the branch is replaced whole, and createCommitOnBranch only appends to its head" };
  }
  return { route: "graphql" };
}
