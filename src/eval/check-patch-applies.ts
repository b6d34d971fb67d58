import { spawn } from "node:child_process";
import { gitEnvBelow } from "./git-env-below.js";

/** Whether `git apply --check` accepts the patch in `checkout` (which it never writes), and git's complaint when not. */
export function checkPatchApplies(checkout: string, patch: Buffer): Promise<{ applies: boolean; error: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["apply", "--check", "-"], {
      cwd: checkout,
      env: gitEnvBelow(checkout),
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
