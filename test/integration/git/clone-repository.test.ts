import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { keepWrittenFiles } from "../../../src/git/keep-written-files.js";
import { writeWorktree, type ClonedFile, type CloneSink } from "../../../src/git/write-worktree.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

const token = "ghs_testtoken1234567890";

/** A sink that hands every batch of files the clone writes to `onFiles`, as a job's index is handed them. */
const seeing = (onFiles: (files: ClonedFile[]) => Promise<void>): CloneSink => ({ start: () => {}, add: onFiles, done: () => {} });
let root: string;
let server: GitServer;
let remote: GitRemote;

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

  it("hands every regular file to onFiles once, with its blob id and bytes, as it writes the work tree", async () => {
    const seen: ClonedFile[] = [];
    await withShallowClone(
      remote,
      "main",
      async ({ dir }) => {
        expect(seen.map((file) => file.path).sort()).toEqual(["README.md", "bin/run.sh", "src/a.ts"]);
        for (const file of seen) {
          expect(file.oid).toBe(server.git("octo/demo", "rev-parse", `main:${file.path}`));
          expect(file.bytes.equals(fs.readFileSync(path.join(dir, file.path)))).toBe(true);
        }
      },
      { sink: seeing(async (files) => void seen.push(...files)) },
    );
  });

  it("clones the same work tree from a server whose answers trickle in, as over a slow link, writing files as they come", async () => {
    const paced = await startGitServer(root, { token, bytesPerSecond: 20_000 });
    try {
      const seen: ClonedFile[] = [];
      await withShallowClone(
        { url: `${paced.url}/octo/demo.git`, token },
        "main",
        async ({ dir, head }) => {
          expect(head).toBe(server.git("octo/demo", "rev-parse", "main"));
          expect(seen.map((file) => file.path).sort()).toEqual(["README.md", "bin/run.sh", "src/a.ts"]);
          for (const file of seen) expect(file.bytes.equals(fs.readFileSync(path.join(dir, file.path)))).toBe(true);
          expect(fs.readlinkSync(path.join(dir, "bin/readme-link"))).toBe("../README.md");
        },
        { sink: seeing(async (files) => void seen.push(...files)) },
      );
    } finally {
      await paced.close();
    }
  });

  it("writes files while the server still holds back the end of the pack, and the rest once it comes", async () => {
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`pkg/mod${i}.py`, `${crypto.randomBytes(2048).toString("hex")}\n`]));
    createBareRepository(root, "octo/many", files);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const holding = await startGitServer(root, { token, holdTail: { bytes: 2048, until: () => released } });
    const parentDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-held-"));
    try {
      const cloned = withShallowClone(
        { url: `${holding.url}/octo/many.git`, token },
        "main",
        async ({ dir }) => {
          for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(dir, rel), "utf8")).toBe(text);
        },
        { parentDir },
      );
      // While the pack's last bytes are held, files of the checkout are on disk already.
      const written = () =>
        fs
          .readdirSync(parentDir)
          .flatMap((checkout) => (fs.existsSync(path.join(parentDir, checkout, "pkg")) ? fs.readdirSync(path.join(parentDir, checkout, "pkg")) : []));
      await vi.waitFor(() => expect(written().length).toBeGreaterThan(30), { timeout: 10_000, interval: 20 });
      release();
      await cloned;
      expect(fs.readdirSync(parentDir)).toEqual([]);
    } finally {
      release();
      await holding.close();
      fs.rmSync(parentDir, { recursive: true, force: true });
    }
  });

  it("hands the files it wrote to the work, once, when asked to keep them", async () => {
    const onFiles: ClonedFile[] = [];
    const kept = keepWrittenFiles();
    const sink: CloneSink = { start: kept.start, add: async (files) => (await kept.add(files), void onFiles.push(...files)), done: kept.done };
    await withShallowClone(
      remote,
      "main",
      async (checkout) => {
        const written = kept.take()!;
        expect(written.files.map((file) => file.path).sort()).toEqual(onFiles.map((file) => file.path).sort());
        expect(written.files.map((file) => file.path).sort()).toEqual(["README.md", "bin/run.sh", "src/a.ts"]);
        for (const file of written.files) expect(file.bytes.equals(fs.readFileSync(path.join(checkout.dir, file.path)))).toBe(true);
        expect(written.folders.sort()).toEqual(["bin", "src"]);
        expect(kept.take()).toBeUndefined();
      },
      { sink },
    );
  });

  it("keeps written files up to its bound and none past it, rather than hold a work tree of any size in memory", () => {
    const file = (name: string, bytes: number): ClonedFile => ({ path: name, oid: "0".repeat(40), bytes: Buffer.alloc(bytes) });
    const small = keepWrittenFiles(10);
    void small.add([file("a", 4), file("b", 6)]);
    small.done(["d"]);
    expect(small.take()).toEqual({ files: [file("a", 4), file("b", 6)], folders: ["d"] });
    expect(small.take()).toBeUndefined();
    const large = keepWrittenFiles(10);
    void large.add([file("a", 4)]);
    void large.add([file("b", 7)]);
    void large.add([file("c", 1)]);
    large.done([]);
    expect(large.take()).toBeUndefined();
  });

  it("writes a blob held from the pack's indexing as held, and reads the blobs not held from the pack", async () => {
    await withShallowClone(
      remote,
      "main",
      async ({ dir, head }) => {
        const readme = server.git("octo/demo", "rev-parse", "main:README.md");
        // Bytes told apart from the blob's own: the work tree takes a held blob without inflating it again.
        const written = await writeWorktree(dir, head, { blobs: new Map([[readme, Buffer.from("as held\n")]]) });
        expect(written).toEqual({ files: 4, folders: ["bin", "src"] });
        expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toBe("as held\n");
        expect(fs.readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
        expect(fs.readlinkSync(path.join(dir, "bin/readme-link"))).toBe("../README.md");
      },
      { files: "none" },
    );
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

  it("makes a .git the real git reads as a sound shallow clone of one commit", async () => {
    await withShallowClone(remote, "main", async ({ dir, head }) => {
      const run = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv(), encoding: "utf8" }).trim();
      expect(run("fsck", "--no-progress", "--strict")).toBe("");
      expect(run("rev-parse", "HEAD", "origin/main")).toBe(`${head}\n${head}`);
      expect(run("log", "--format=%s")).toBe("modes");
      expect(run("ls-tree", "-r", "--name-only", "HEAD")).toBe("README.md\nbin/readme-link\nbin/run.sh\nsrc/a.ts");
    });
  });

  it("fails without the right token, with a message that says so, and leaves no checkout", async () => {
    const parentDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-parent-"));
    try {
      await expect(withShallowClone({ ...remote, token: "wrong" }, "main", async () => 1, { parentDir })).rejects.toThrow(
        /the git server refused the credentials for http:\/\/127\.0\.0\.1:\d+\/octo\/demo\.git \(HTTP 401/,
      );
      expect(fs.readdirSync(parentDir)).toEqual([]);
    } finally {
      fs.rmSync(parentDir, { recursive: true, force: true });
    }
  });

  it("says which branch is missing, and which repository is not there", async () => {
    await expect(withShallowClone(remote, "no-such-branch", async () => 1)).rejects.toThrow(`the repository at ${remote.url} has no branch 'no-such-branch'`);
    await expect(withShallowClone({ ...remote, url: `${server.url}/octo/absent.git` }, "main", async () => 1)).rejects.toThrow(
      /there is no git repository at .*octo\/absent\.git \(HTTP 404/,
    );
  });

  it("refuses a tree that names '..' or '.git' rather than write outside the checkout or into its .git", async () => {
    for (const evil of ["..", ".GIT"]) {
      const bare = path.join(root, "octo/demo.git");
      const blob = server.git("octo/demo", "rev-parse", "main:README.md");
      // git's own tools refuse these names, so the tree is written byte by byte and stored without checks.
      const entry = Buffer.concat([Buffer.from(`100644 ${evil}\0`), Buffer.from(blob, "hex")]);
      const tree = execFileSync("git", ["hash-object", "-w", "-t", "tree", "--literally", "--stdin"], { cwd: bare, input: entry, encoding: "utf8" }).trim();
      const commit = execFileSync("git", ["commit-tree", tree, "-m", "evil"], { cwd: bare, env: gitEnv(), encoding: "utf8" }).trim();
      server.git("octo/demo", "update-ref", `refs/heads/evil`, commit);
      let ran = false;
      await expect(withShallowClone(remote, "evil", async () => (ran = true))).rejects.toThrow(
        `refusing to check out tree ${tree}: it names an entry '${evil}', which git never writes`,
      );
      expect(ran).toBe(false);
    }
  });
});
