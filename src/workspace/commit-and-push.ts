import fs from "node:fs";
import git from "isomorphic-git";
import { encodeFile, type FileEncoding } from "../edit/file-encoding.js";
import { checkBotBranch } from "./check-bot-branch.js";
import { authFor, gitHttpFor, type Checkout, type GitRemote } from "./clone-repository.js";
import { protectedPathMatcher } from "./protected-paths.js";
import { resolveInside } from "./safe-path.js";
import { writeChangedTree } from "./write-changed-tree.js";

/** One commit the bot makes on top of a checkout and pushes to one of its branches. */
export interface CommitRequest {
  checkout: Checkout;
  remote: GitRemote;
  /** Branch to push to (created from the checkout's head when it does not exist). */
  branch: string;
  /** Files with their complete new text and the encoding the file is written in (the one it was read in). */
  changes: { path: string; after: string; encoding: FileEncoding }[];
  message: string;
  author: { name: string; email: string };
  /** Replace the remote branch even if it moved (only for branches whose commits are all the bot's). */
  force: boolean;
  /**
   * With `force`, the commit the remote branch was at when it was found to hold only the bot's commits: the push goes
   * through only if the branch is still there (a lease, checked against the very refs the push updates), so a person's
   * push in between is never overwritten.
   */
  expectedRemoteHead?: string;
  /** What the push must never touch: the default branch, branches without the prefix, protected files. */
  guard: { prefix: string; defaultBranch: string; protectedPaths: string[] };
}

/** The server refused the push of a branch (a hook, a branch rule); the message names the branch and the server's reason. */
export class PushRefusedError extends Error {
  constructor(
    readonly branch: string,
    readonly reason: string,
  ) {
    super(`the push of '${branch}' was refused: ${reason}`);
    this.name = "PushRefusedError";
  }
}

/** Makes one commit with the changes on the checkout's head and pushes it to the bot branch; returns the commit id. */
export async function commitAndPush(request: CommitRequest): Promise<string> {
  const { checkout, guard } = request;
  checkBotBranch(request.branch, guard.prefix, guard.defaultBranch);
  const isProtected = protectedPathMatcher(guard.protectedPaths);
  const { dir } = checkout;
  const files = new Map<string, Uint8Array>();
  for (const change of request.changes) {
    // resolveInside refuses escapes, `.git` and symbolic links leading out of the checkout.
    const { relative } = resolveInside(dir, change.path);
    if (isProtected(relative)) {
      throw new Error(`refusing to commit '${relative}': it matches protected_paths in .github/magis.yml`);
    }
    try {
      files.set(relative, encodeFile(change.after, change.encoding));
    } catch (error) {
      throw new Error(`refusing to commit '${relative}': ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const parentTree = (await git.readCommit({ fs, dir, oid: checkout.head })).commit.tree;
  const tree = await writeChangedTree(dir, parentTree, files);
  if (tree === parentTree) {
    throw new Error("refusing to push: the change is empty (the files already have this content)");
  }
  const ref = `refs/heads/${request.branch}`;
  // The commit is built from trees, not the checkout's index, and lands on a local branch of its own.
  const oid = await git.commit({ fs, dir, ref, tree, parent: [checkout.head], message: request.message, author: request.author });
  const expected = request.force ? request.expectedRemoteHead : undefined;
  let moved: string | null = null;
  // What the server printed on the side band (a hook's reason lands here, not in the ref's status line).
  const serverLines: string[] = [];
  let result: Awaited<ReturnType<typeof git.push>>;
  const http = gitHttpFor(request.remote);
  try {
    result = await http.settle(git.push({
      fs,
      http,
      dir,
      ref,
      remoteRef: ref,
      // The clone's origin is request.remote.url; naming the remote (not the URL) lets the push find origin/HEAD.
      remote: "origin",
      force: request.force,
      onAuth: authFor(request.remote),
      onMessage: (message) => {
        serverLines.push(message);
      },
      // The old commit the push names is the one advertised here; receive-pack refuses the update if the branch moved since.
      ...(expected
        ? {
            onPrePush: ({ remoteRef }: { remoteRef: { oid: string } }) => {
              if (remoteRef.oid === expected) return true;
              moved = remoteRef.oid;
              return false;
            },
          }
        : {}),
    }));
  } catch (error) {
    if (moved !== null) {
      throw new Error(
        `refusing to force-push '${request.branch}': it moved to ${String(moved).slice(0, 7)} after it was checked at ${expected!.slice(0, 7)}, so someone else's commits may be on it now`,
      );
    }
    // isomorphic-git throws a refused ref update (GitPushError) with the same per-ref result it returns otherwise.
    if (!(error instanceof git.Errors.GitPushError)) throw error;
    result = error.data.result;
  }
  const status = result.refs[ref];
  if (!result.ok || (status && !status.ok)) {
    throw new PushRefusedError(request.branch, describeRefusal(status?.error || result.error, serverLines));
  }
  return oid;
}

/** The server's reason for refusing a push: its status for the ref and what it printed (a hook's message), or a plain "no reason". */
function describeRefusal(refError: string | null | undefined, serverLines: string[]): string {
  const printed = serverLines
    .flatMap((line) => line.split(/[\r\n]+/))
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const parts = [refError?.trim() || "the server gave no reason for the ref", ...(printed.length > 0 ? [`server said: ${printed.join(" / ")}`] : [])];
  return parts.join("; ");
}
