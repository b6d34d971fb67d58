import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import git from "isomorphic-git";
import { checkoutPrefix } from "./checkout-name.js";
import { DEFAULT_GIT_IDLE_MS, gitHttpWithTimeout } from "./git-http-with-timeout.js";
import { writeWorktree } from "./write-worktree.js";

/** Where a repository lives and the credential that opens it (an installation token). */
export interface GitRemote {
  /** HTTPS clone URL, without credentials. */
  url: string;
  token: string;
  /** Most milliseconds the git server may stay silent before a clone fails (default 60 s). */
  idleTimeoutMs?: number;
}

/** A fresh shallow checkout of one branch. */
export interface Checkout {
  dir: string;
  branch: string;
  /** The commit the checkout is at. */
  head: string;
}

/**
 * Clones `branch` shallowly (depth 1, single branch, no tags) into a new temporary directory, runs `work` on it,
 * and removes the directory afterwards whether `work` succeeded or not (a killed process's are removed by the next
 * app's removeLeftoverCheckouts). `parentDir` (default: the system's temp directory) is where the checkout goes; a
 * tmpfs there makes checkouts of large repositories much faster. With `files: "none"` the work tree stays empty
 * (writing thousands of files costs several times the fetch) and the caller writes the few files it reads with
 * `writeFilesAt`.
 */
export async function withShallowClone<T>(
  remote: GitRemote,
  branch: string,
  work: (checkout: Checkout) => Promise<T>,
  options: { parentDir?: string; files?: "all" | "none" } = {},
): Promise<T> {
  const parent = options.parentDir ?? os.tmpdir();
  fs.mkdirSync(parent, { recursive: true });
  // Named by this process, so a later one can remove it if this process is killed before the finally below runs.
  const dir = fs.mkdtempSync(path.join(parent, checkoutPrefix()));
  try {
    const cache = {};
    // Gives up on a git server that goes silent (isomorphic-git's own client would wait forever).
    const http = gitHttpWithTimeout(remote.idleTimeoutMs ?? DEFAULT_GIT_IDLE_MS);
    await http.settle(git.clone({
      fs,
      http,
      dir,
      url: remote.url,
      ref: branch,
      depth: 1,
      singleBranch: true,
      noTags: true,
      // isomorphic-git's checkout also builds an index, which the bot never uses; writing the files is twice as fast.
      noCheckout: true,
      // isomorphic-git asks for credentials instead of reading them from the URL, so the token never sits in a URL or a log line.
      onAuth: () => ({ username: "x-access-token", password: remote.token }),
      cache,
    }));
    const head = await git.resolveRef({ fs, dir, ref: "HEAD" });
    if (options.files !== "none") await writeWorktree(dir, head, cache);
    return await work({ dir, branch, head });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
