import { execFile } from "node:child_process";
import path from "node:path";

/**
 * What names the state of the checkout `root` for the diagnostics kept across jobs: its HEAD commit when its own
 * `.git` says the work tree holds that commit and nothing more (no change, no untracked file), else null (a plain
 * folder, a dirty tree, no git here): what an untouched file's imports read is then not named, and nothing is kept.
 */
export async function nameWorkspace(root: string): Promise<string | null> {
  const head = await git(root, ["rev-parse", "--verify", "HEAD"]);
  if (!head || !/^[0-9a-f]{40,64}$/.test(head)) return null;
  const status = await git(root, ["--no-optional-locks", "status", "--porcelain", "--untracked-files=normal"]);
  return status === "" ? head : null;
}

/** Git's trimmed output in `root`, or null when it fails; only the checkout's own `.git` is read, never a folder's above. */
function git(root: string, args: string[]): Promise<string | null> {
  const env = { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(root)) };
  return new Promise((resolve) => {
    execFile("git", ["-C", root, ...args], { env, timeout: 30_000, maxBuffer: 1 << 20 }, (error, stdout) => resolve(error ? null : String(stdout).trim()));
  });
}
