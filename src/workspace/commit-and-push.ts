import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import http from "isomorphic-git/http/node";
import { checkBotBranch } from "./check-bot-branch.js";
import { authFor, type Checkout, type GitRemote } from "./clone-repository.js";
import { protectedPathMatcher } from "./protected-paths.js";
import { resolveInside } from "./safe-path.js";

/** One commit the bot makes on top of a checkout and pushes to one of its branches. */
export interface CommitRequest {
  checkout: Checkout;
  remote: GitRemote;
  /** Branch to push to (created from the checkout's head when it does not exist). */
  branch: string;
  /** Files with their complete new text. */
  changes: { path: string; after: string }[];
  message: string;
  author: { name: string; email: string };
  /** Replace the remote branch even if it moved (only for branches whose commits are all the bot's). */
  force: boolean;
  /** What the push must never touch: the default branch, branches without the prefix, protected files. */
  guard: { prefix: string; defaultBranch: string; protectedPaths: string[] };
}

/** Writes the changes into the checkout, makes one commit on its head and pushes it; returns the commit id. */
export async function commitAndPush(request: CommitRequest): Promise<string> {
  const { checkout, guard } = request;
  checkBotBranch(request.branch, guard.prefix, guard.defaultBranch);
  const isProtected = protectedPathMatcher(guard.protectedPaths);
  const { dir } = checkout;
  const paths: string[] = [];
  for (const change of request.changes) {
    const { relative, absolute } = resolveInside(dir, change.path);
    if (isProtected(relative)) {
      throw new Error(`refusing to commit '${relative}': it matches protected_paths in .github/magis.yml`);
    }
    fs.mkdirSync(path.dirname(absolute), { recursive: true });
    fs.writeFileSync(absolute, change.after);
    paths.push(relative);
  }
  if (paths.length > 0) await git.add({ fs, dir, filepath: paths });

  const ref = `refs/heads/${request.branch}`;
  // A local branch at the checkout's head; the commit below moves it, never the checked-out default branch.
  await git.writeRef({ fs, dir, ref, value: checkout.head, force: true });
  const parentTree = (await git.readCommit({ fs, dir, oid: checkout.head })).commit.tree;
  const oid = await git.commit({
    fs,
    dir,
    ref,
    parent: [checkout.head],
    message: request.message,
    author: request.author,
  });
  const { commit } = await git.readCommit({ fs, dir, oid });
  if (commit.tree === parentTree) {
    throw new Error("refusing to push: the change is empty (the files already have this content)");
  }
  const result = await git.push({
    fs,
    http,
    dir,
    ref,
    remoteRef: ref,
    url: request.remote.url,
    force: request.force,
    onAuth: authFor(request.remote),
  });
  const status = result.refs[ref];
  if (!result.ok || (status && !status.ok)) {
    throw new Error(`the push of '${request.branch}' was refused: ${status?.error ?? result.error ?? "unknown reason"}`);
  }
  return oid;
}
