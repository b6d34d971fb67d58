import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone } from "../../../src/git/clone-repository.js";
import { gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

// A repository that names its objects with SHA-256, made and served by the real git.
let root: string;
let server: GitServer;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sha256-"));
  const work = path.join(root, "work");
  const bare = path.join(root, "octo", "modern.git");
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv(), stdio: "pipe" });
  fs.mkdirSync(work, { recursive: true });
  git(work, "init", "-q", "--object-format=sha256", "-b", "main");
  fs.writeFileSync(path.join(work, "README.md"), "Hello\n");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "Initial commit");
  execFileSync("git", ["clone", "-q", "--bare", work, bare], { env: gitEnv(), stdio: "pipe" });
  server = await startGitServer(root);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("a repository that uses SHA-256 object names", () => {
  it("is named as one MAGIS does not support yet, and leaves no checkout", async () => {
    const url = `${server.url}/octo/modern.git`;
    expect(server.git("octo/modern", "rev-parse", "--show-object-format")).toBe("sha256");
    const parentDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sha256-parent-"));
    try {
      await expect(withShallowClone({ url, token: "unused" }, "main", async () => 1, { parentDir })).rejects.toThrow(
        `the repository at ${url} uses SHA-256 object names, which MAGIS does not support yet: it reads repositories that use SHA-1, git's default`,
      );
      expect(fs.readdirSync(parentDir)).toEqual([]);
    } finally {
      fs.rmSync(parentDir, { recursive: true, force: true });
    }
  });
});
