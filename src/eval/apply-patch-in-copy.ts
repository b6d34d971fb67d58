import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { gitEnvBelow } from "./git-env-below.js";

/**
 * Copies the files of `checkout` named in `paths` (those that exist) into `dir`, a plain folder outside any repository,
 * and applies `patch` there with `git apply`; says whether git took it. The checkout is never written.
 */
export async function applyPatchInCopy(checkout: string, paths: string[], dir: string, patch: Buffer): Promise<boolean> {
  await fs.promises.mkdir(dir, { recursive: true });
  for (const file of paths) {
    const from = path.join(checkout, file);
    if (!fs.statSync(from, { throwIfNoEntry: false })?.isFile()) continue;
    await fs.promises.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.promises.copyFile(from, path.join(dir, file));
  }
  return new Promise((resolve) => {
    const child = execFile("git", ["apply", "--whitespace=nowarn", "-"], { cwd: dir, env: gitEnvBelow(dir) }, (error) => resolve(!error));
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(patch);
  });
}
