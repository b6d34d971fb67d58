import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

let root: string;
let server: GitServer;
let remote: GitRemote;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-files-at-"));
  const bare = createBareRepository(root, "octo/sparse", { "README.md": "Hello\n", "src/deep/a.ts": "export const a = 1;\n", "bin/run.sh": "#!/bin/sh\n" });
  // A link leading out of the repository and an executable, committed by the real git.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-files-at-seed-"));
  const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
  run("clone", "-q", bare, ".");
  fs.symlinkSync("/etc/passwd", path.join(work, "passwd"));
  fs.chmodSync(path.join(work, "bin/run.sh"), 0o755);
  run("add", "-A");
  run("commit", "-q", "-m", "link and mode");
  run("push", "-q", "origin", "HEAD:main");
  fs.rmSync(work, { recursive: true, force: true });
  server = await startGitServer(root);
  remote = { url: `${server.url}/octo/sparse.git`, token: "unused" };
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("a checkout without its files, and writeFilesAt", () => {
  it("clones with an empty work tree, then writes only the regular files asked for, safely and once", async () => {
    await withShallowClone(
      remote,
      "main",
      async (checkout) => {
        expect(fs.readdirSync(checkout.dir)).toEqual([".git"]);
        const asked = ["src/deep/a.ts", "./README.md", "bin/run.sh", "missing.ts", "src", "passwd", "../outside.txt", ".git/config", "/etc/hosts"];
        expect(await checkout.writeFiles(asked)).toEqual(["src/deep/a.ts", "README.md", "bin/run.sh"]);
        expect(fs.readFileSync(path.join(checkout.dir, "src/deep/a.ts"), "utf8")).toBe("export const a = 1;\n");
        expect(fs.statSync(path.join(checkout.dir, "bin/run.sh")).mode & 0o111).not.toBe(0);
        expect(fs.existsSync(path.join(checkout.dir, "passwd"))).toBe(false);
        expect(fs.existsSync(path.join(checkout.dir, "missing.ts"))).toBe(false);
        expect(fs.existsSync(path.join(root, "outside.txt"))).toBe(false);
        expect(fs.readdirSync(checkout.dir).sort()).toEqual([".git", "README.md", "bin", "src"]);
        // Files already there are left as they are.
        fs.writeFileSync(path.join(checkout.dir, "README.md"), "edited\n");
        expect(await checkout.writeFiles(["README.md"])).toEqual([]);
        expect(fs.readFileSync(path.join(checkout.dir, "README.md"), "utf8")).toBe("edited\n");
      },
      { files: "none" },
    );
  });
});
