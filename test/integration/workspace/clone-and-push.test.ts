import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/workspace/clone-repository.js";
import { commitAndPush } from "../../../src/workspace/commit-and-push.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

const token = "ghs_testtoken1234567890";
let root: string;
let server: GitServer;
let remote: GitRemote;
const guard = { prefix: "magis/", defaultBranch: "main", protectedPaths: [".github/workflows/**"] };
const author = { name: "magis-bot[bot]", email: "1+magis-bot[bot]@users.noreply.github.com" };

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-git-"));
  createBareRepository(root, "octo/demo", { "README.md": "Hello wrold\n", "src/a.ts": "export const a = 1;\n" });
  server = await startGitServer(root, { token });
  remote = { url: `${server.url}/octo/demo.git`, token };
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("withShallowClone", () => {
  it("clones one commit of the branch with the token and removes the directory afterwards", async () => {
    let seen = "";
    const head = await withShallowClone(remote, "main", async (checkout) => {
      seen = checkout.dir;
      expect(fs.readFileSync(path.join(checkout.dir, "README.md"), "utf8")).toBe("Hello wrold\n");
      expect(fs.readFileSync(path.join(checkout.dir, ".git", "shallow"), "utf8").trim()).toBe(checkout.head);
      return checkout.head;
    });
    expect(head).toBe(server.git("octo/demo", "rev-parse", "main"));
    expect(fs.existsSync(seen)).toBe(false);
    const authenticated = server.requests.filter((r) => r.password !== undefined);
    expect(authenticated.length).toBeGreaterThan(0);
    expect(authenticated.every((r) => r.username === "x-access-token" && r.password === token)).toBe(true);
  });

  it("writes the work tree with executable bits and symbolic links as git would", async () => {
    const bare = path.join(root, "octo/demo.git");
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-modes-"));
    const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
    run("clone", "-q", bare, ".");
    fs.mkdirSync(path.join(work, "bin"));
    fs.writeFileSync(path.join(work, "bin/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    fs.symlinkSync("../README.md", path.join(work, "bin/readme-link"));
    run("add", "-A");
    run("commit", "-q", "-m", "modes");
    run("push", "-q", "origin", "main");
    fs.rmSync(work, { recursive: true, force: true });
    await withShallowClone(remote, "main", async ({ dir }) => {
      expect(fs.statSync(path.join(dir, "bin/run.sh")).mode & 0o111).not.toBe(0);
      expect(fs.statSync(path.join(dir, "README.md")).mode & 0o111).toBe(0);
      expect(fs.readlinkSync(path.join(dir, "bin/readme-link"))).toBe("../README.md");
      expect(fs.readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
    });
  });

  it("removes the directory when the work fails", async () => {
    let seen = "";
    await expect(
      withShallowClone(remote, "main", async (checkout) => {
        seen = checkout.dir;
        throw new Error("stage failed");
      }),
    ).rejects.toThrow("stage failed");
    expect(fs.existsSync(seen)).toBe(false);
  });

  it("fails without the right token", async () => {
    await expect(withShallowClone({ ...remote, token: "wrong" }, "main", async () => 1)).rejects.toThrow();
  });
});

describe("commitAndPush", () => {
  it("pushes one commit on the default head to a new bot branch", async () => {
    const oid = await withShallowClone(remote, "main", (checkout) =>
      commitAndPush({
        checkout,
        remote,
        branch: "magis/issue-1",
        changes: [
          { path: "README.md", after: "Hello world\n", encoding: "utf-8" },
          { path: "src/a.ts", after: "export const a = 2;\n", encoding: "utf-8" },
          { path: "docs/new/guide.md", after: "# Guide\n", encoding: "utf-8" },
        ],
        message: "Fix the greeting\n\nFixes #1",
        author,
        force: false,
        guard,
      }),
    );
    expect(server.git("octo/demo", "rev-parse", "magis/issue-1")).toBe(oid);
    expect(server.git("octo/demo", "rev-list", "--count", "main..magis/issue-1")).toBe("1");
    expect(server.git("octo/demo", "log", "-1", "--format=%an <%ae>", "magis/issue-1")).toBe(`${author.name} <${author.email}>`);
    expect(server.git("octo/demo", "diff", "main", "magis/issue-1")).toContain("+Hello world");
    expect(server.git("octo/demo", "diff", "--name-status", "main", "magis/issue-1").split("\n")).toEqual([
      "M\tREADME.md",
      "A\tdocs/new/guide.md",
      "M\tsrc/a.ts",
    ]);
    expect(server.git("octo/demo", "fsck", "--no-progress")).toBe("");
  });

  it("force-pushes over its own branch only when asked", async () => {
    const push = (force: boolean) =>
      withShallowClone(remote, "main", (checkout) =>
        commitAndPush({
          checkout, remote, branch: "magis/issue-2", changes: [{ path: "src/a.ts", after: `export const a = ${force ? 3 : 2};\n`, encoding: "utf-8" }],
          message: "m", author, force, guard,
        }),
      );
    await push(false);
    const second = await push(true);
    expect(server.git("octo/demo", "rev-parse", "magis/issue-2")).toBe(second);
    expect(server.git("octo/demo", "rev-list", "--count", "main..magis/issue-2")).toBe("1");
  });

  it("force-pushes only while the branch is still at the commit it was checked at", async () => {
    const push = (expectedRemoteHead: string, text: string) =>
      withShallowClone(remote, "main", (checkout) =>
        commitAndPush({
          checkout, remote, branch: "magis/issue-4", changes: [{ path: "src/a.ts", after: text, encoding: "utf-8" }], message: "m", author, force: true, expectedRemoteHead, guard,
        }),
      );
    await withShallowClone(remote, "main", (checkout) =>
      commitAndPush({ checkout, remote, branch: "magis/issue-4", changes: [{ path: "src/a.ts", after: "export const a = 4;\n", encoding: "utf-8" }], message: "m", author, force: false, guard }),
    );
    const checked = server.git("octo/demo", "rev-parse", "magis/issue-4");
    // Someone pushed after the check: the branch is no longer where the lease says.
    await expect(push(server.git("octo/demo", "rev-parse", "main"), "export const a = 5;\n")).rejects.toThrow(/refusing to force-push 'magis\/issue-4': it moved/);
    expect(server.git("octo/demo", "rev-parse", "magis/issue-4")).toBe(checked);
    const replaced = await push(checked, "export const a = 6;\n");
    expect(server.git("octo/demo", "rev-parse", "magis/issue-4")).toBe(replaced);
  });

  it("refuses the default branch, unprefixed branches, protected files and empty changes, pushing nothing", async () => {
    const before = server.git("octo/demo", "for-each-ref", "--format=%(refname) %(objectname)");
    const attempt = (branch: string, changes: { path: string; after: string; encoding: "utf-8" }[]) =>
      withShallowClone(remote, "main", (checkout) =>
        commitAndPush({ checkout, remote, branch, changes, message: "m", author, force: true, guard }),
      );
    await expect(attempt("main", [{ path: "README.md", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/default branch/);
    await expect(attempt("feature/x", [{ path: "README.md", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/'magis\/…'/);
    await expect(attempt("magis/issue-3", [{ path: ".github/workflows/ci.yml", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/protected_paths/);
    await expect(attempt("magis/issue-3", [{ path: "README.md", after: "Hello wrold\n", encoding: "utf-8" }])).rejects.toThrow(/empty/);
    await expect(attempt("magis/issue-3", [{ path: "../escape", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/outside/);
    expect(server.git("octo/demo", "for-each-ref", "--format=%(refname) %(objectname)")).toBe(before);
    // A link inside the repository (pointing inside it) is not a file to rewrite, nor a folder to write under.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-link-"));
    const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
    run("clone", "-q", path.join(root, "octo/demo.git"), ".");
    fs.symlinkSync("src", path.join(work, "src-link"));
    fs.symlinkSync("src/a.ts", path.join(work, "a-link.ts"));
    run("add", "-A");
    run("commit", "-q", "-m", "links");
    run("push", "-q", "origin", "main");
    fs.rmSync(work, { recursive: true, force: true });
    const withLinks = server.git("octo/demo", "for-each-ref", "--format=%(refname) %(objectname)");
    await expect(attempt("magis/issue-3", [{ path: "a-link.ts", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/'a-link\.ts': it is a symbolic link/);
    await expect(attempt("magis/issue-3", [{ path: "src-link/b.ts", after: "x\n", encoding: "utf-8" }])).rejects.toThrow(/under 'src-link': it is a symbolic link/);
    expect(server.git("octo/demo", "for-each-ref", "--format=%(refname) %(objectname)")).toBe(withLinks);
  });

  it("names the branch and the server's reason when a server hook refuses the push", async () => {
    const bare = createBareRepository(root, "octo/hooked", { "README.md": "Hello wrold\n" });
    const hook = path.join(bare, "hooks", "pre-receive");
    fs.writeFileSync(hook, "#!/bin/sh\necho 'GH013: Repository rule violations found for refs/heads/magis/issue-9.' >&2\necho '- Changes must be made through a pull request.' >&2\nexit 1\n", { mode: 0o755 });
    const hooked = { url: `${server.url}/octo/hooked.git`, token };
    const push = withShallowClone(hooked, "main", (checkout) =>
      commitAndPush({ checkout, remote: hooked, branch: "magis/issue-9", changes: [{ path: "README.md", after: "Hello world\n", encoding: "utf-8" }], message: "m", author, force: false, guard }),
    );
    await expect(push).rejects.toThrow(/the push of 'magis\/issue-9' was refused: .*pre-receive hook declined.*GH013: Repository rule violations found for refs\/heads\/magis\/issue-9\. \/ - Changes must be made through a pull request\./s);
    expect(server.git("octo/hooked", "for-each-ref", "--format=%(refname)", "refs/heads/magis")).toBe("");
  });
});
