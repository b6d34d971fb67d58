import { spawn } from "node:child_process";
import path from "node:path";

/** Whether `git apply --check` accepts the patch in `checkout` (which it never writes), and git's complaint when not. */
export function checkPatchApplies(checkout: string, patch: Buffer): Promise<{ applies: boolean; error: string }> {
  return new Promise((resolve, reject) => {
    // The ceiling keeps git from taking a repository above the checkout (a plain tree under a work folder) for its own.
    // git gets this process's environment, passed through on purpose (its own settings: HOME, PATH, GIT_*).
    const child = spawn("git", ["apply", "--check", "-"], {
      cwd: checkout,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(checkout) },
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => reject(new Error(`could not run git apply in ${checkout}: ${error.message}; is git installed?`)));
    child.on("close", (code) => resolve({ applies: code === 0, error: stderr.trim() }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(patch);
  });
}
