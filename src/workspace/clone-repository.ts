import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import git, { type HttpClient } from "isomorphic-git";
import { checkoutPrefix } from "./checkout-name.js";
import { DEFAULT_GIT_IDLE_MS, gitHttpWithTimeout } from "./git-http-with-timeout.js";
import { fetchShallowPack } from "./pack/fetch-shallow-pack.js";
import { indexPack } from "./pack/index-pack.js";
import { writeWorktree, type ClonedFile } from "./write-worktree.js";

/** Where a repository lives and the credential that opens it (an installation token). */
export interface GitRemote {
  /** HTTPS clone URL, without credentials. */
  url: string;
  token: string;
  /** Most milliseconds the git server may stay silent before a clone fails (default 60 s). */
  idleTimeoutMs?: number;
  /** Most bytes of pack the server may send (default: no limit); a server that sends more fails the clone. */
  maxBytes?: number;
}

/** A fresh shallow checkout of one branch. */
export interface Checkout {
  dir: string;
  branch: string;
  /** The commit the checkout is at. */
  head: string;
}

/**
 * Makes `dir` a shallow clone of `branch` without its files: the pack fetched (see fetchShallowPack), indexed with
 * Node's zlib (isomorphic-git's clone inflates every object in JavaScript, which took longer than the download),
 * and a `.git` isomorphic-git reads as its own: the branch, its remote-tracking ref and the shallow commits.
 * Returns the branch's commit.
 */
async function fetchInto(dir: string, remote: GitRemote, branch: string, http: HttpClient): Promise<string> {
  const { head, pack, shallow } = await fetchShallowPack(http, remote.url, remote.token, branch, remote.maxBytes);
  const index = await indexPack(pack);
  await git.init({ fs, dir, defaultBranch: branch });
  const packs = path.join(dir, ".git", "objects", "pack");
  fs.mkdirSync(packs, { recursive: true });
  const name = `pack-${pack.subarray(pack.length - 20).toString("hex")}`;
  fs.writeFileSync(path.join(packs, `${name}.pack`), pack);
  fs.writeFileSync(path.join(packs, `${name}.idx`), index);
  fs.writeFileSync(path.join(dir, ".git", "shallow"), shallow.map((oid) => `${oid}\n`).join(""));
  await git.setConfig({ fs, dir, path: "remote.origin.url", value: remote.url });
  await git.setConfig({ fs, dir, path: "remote.origin.fetch", value: `+refs/heads/${branch}:refs/remotes/origin/${branch}` });
  await git.writeRef({ fs, dir, ref: `refs/heads/${branch}`, value: head, force: true });
  await git.writeRef({ fs, dir, ref: `refs/remotes/origin/${branch}`, value: head, force: true });
  return head;
}

/**
 * Clones `branch` shallowly (depth 1, single branch, no tags) into a new temporary directory, runs `work` on it,
 * and removes the directory afterwards whether `work` succeeded or not (a killed process's are removed by the next
 * app's removeLeftoverCheckouts). `parentDir` (default: the system's temp directory) is where the checkout goes; a
 * tmpfs there makes checkouts of large repositories much faster. With `files: "none"` the work tree stays empty
 * and the caller writes the few files it reads with `writeFilesAt`; otherwise `onFiles` sees the files as they are
 * written (see writeWorktree).
 */
export async function withShallowClone<T>(
  remote: GitRemote,
  branch: string,
  work: (checkout: Checkout) => Promise<T>,
  options: { parentDir?: string; files?: "all" | "none"; onFiles?: (files: ClonedFile[]) => Promise<void> } = {},
): Promise<T> {
  const parent = options.parentDir ?? os.tmpdir();
  fs.mkdirSync(parent, { recursive: true });
  // Named by this process, so a later one can remove it if this process is killed before the finally below runs.
  const dir = fs.mkdtempSync(path.join(parent, checkoutPrefix()));
  try {
    // Gives up on a git server that goes silent.
    const http = gitHttpWithTimeout(remote.idleTimeoutMs ?? DEFAULT_GIT_IDLE_MS);
    const head = await http.settle(fetchInto(dir, remote, branch, http));
    if (options.files !== "none") await writeWorktree(dir, head, { onFiles: options.onFiles });
    return await work({ dir, branch, head });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
