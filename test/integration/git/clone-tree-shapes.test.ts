import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";
import { treeSnapshot } from "../../support/tree-snapshot.js";

// The bot's clone against the native `git clone --depth 1` of the same repository, served by the real git
// http-backend: every shape a default branch can hold that the work tree must reproduce.
const token = "ghs_shapes1234567890";
const DEEP = Array.from({ length: 30 }, (_, i) => `d${i}`).join("/");
let root: string;
let server: GitServer;
let remote: GitRemote;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-shapes-"));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-shapes-work-"));
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
    git("init", "-q", "-b", "main");
    const write = (rel: string, content: string | Buffer, mode = 0o644) => {
      fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
      fs.writeFileSync(path.join(work, rel), content, { mode });
    };
    write(`deep/${DEEP}/leaf.py`, "x = 1\n");
    write("naïve café.py", "# ünïcødé\n");
    write("with space.txt", "spaced\n");
    write("empty.txt", "");
    // Several MB that deflate poorly, so the pack carries them whole.
    write("big.txt", Array.from({ length: 200_000 }, (_, i) => `line ${i} ${(i * 7919) % 104729} ${((i * 104729) % 7919).toString(36)}\n`).join(""));
    // Near-copies: even a pack of one commit stores most of them as deltas on one another.
    const similar = Array.from({ length: 2000 }, (_, i) => `def f${i}(x):\n    return x * ${i}\n`).join("");
    for (let k = 0; k < 5; k++) write(`similar${k}.py`, similar.replace("return x * 7\n", `return x * 7 + ${k}\n`));
    write("run.sh", "#!/bin/sh\necho hi\n", 0o755);
    fs.symlinkSync("run.sh", path.join(work, "link"));
    write(".gitmodules", '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n');
    git("add", "-A");
    git("update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},sub`);
    git("commit", "-q", "-m", "shapes");
    fs.mkdirSync(path.join(root, "octo"), { recursive: true });
    execFileSync("git", ["clone", "-q", "--bare", work, path.join(root, "octo/shapes.git")], { env: gitEnv(), stdio: "pipe" });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  server = await startGitServer(root, { token });
  remote = { url: `${server.url}/octo/shapes.git`, token };
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("withShallowClone against the native shallow clone", () => {
  it("writes the same work tree: UTF-8 and spaced names, an empty and a large file, deep folders, modes, a link, a submodule", async () => {
    const native = fs.mkdtempSync(path.join(os.tmpdir(), "magis-native-"));
    try {
      const authed = remote.url.replace("http://", `http://x-access-token:${token}@`);
      // Asynchronous: the git server runs in this process.
      await promisify(execFile)("git", ["clone", "-q", "--depth", "1", "--single-branch", "--no-tags", authed, native], { env: gitEnv() });
      const expected = treeSnapshot(native);
      expect(expected["sub"]).toBe("dir");
      expect(expected["link"]).toBe("link -> run.sh");
      await withShallowClone(remote, "main", async ({ dir }) => {
        expect(treeSnapshot(dir)).toEqual(expected);
        const run = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv(), encoding: "utf8" });
        expect(run("fsck", "--no-progress", "--strict")).toBe("");
        // The pack really held deltas, so their application was exercised.
        const idx = fs.readdirSync(path.join(dir, ".git/objects/pack")).find((name) => name.endsWith(".idx"))!;
        const verify = run("verify-pack", "-v", path.join(dir, ".git/objects/pack", idx));
        expect(verify.split("\n").filter((line) => /^[0-9a-f]{40} blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(line)).length).toBeGreaterThanOrEqual(3);
      });
    } finally {
      fs.rmSync(native, { recursive: true, force: true });
    }
  });
});
