import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FileEncoding } from "../../../../src/edit/file-encoding.js";
import { BranchMovedError, type BranchLease } from "../../../../src/github/branches/move-branch.js";
import { commitThroughApi } from "../../../../src/github/publish/commit-through-api.js";
import type { Octokit } from "../../../../src/github/types.js";
import { withShallowClone } from "../../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../../support/git-server.js";
import { fakeGitHub, type FakeGitHub } from "../../../support/github-api.js";

// The real git behind git http-backend; GitHub is the strict fake, whose createCommitOnBranch commits in the bare repository.
const TOKEN = "ghs_graphqlCommitToken0123456789abcdef";
const FULL = "octo/demo";
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe, 0x80, 0x7f]);
const guard = { prefix: "magis/", defaultBranch: "main", protectedPaths: [".github/**"] };

let root: string;
let server: GitServer;
let github: FakeGitHub;
const octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
const git = (...args: string[]) => server.git(FULL, ...args);

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-graphql-commit-"));
  const bare = createBareRepository(root, FULL, {
    "README.md": "Hello\n",
    "notes.py": Buffer.from("# caf\xe9 au lait\nprint('hello')\n", "latin1"),
    "src/app.js": Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'hello';\r\n")]),
    "logo.png": BINARY,
  });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-graphql-commit-work-"));
  const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
  run("clone", "-q", bare, ".");
  fs.mkdirSync(path.join(work, "bin"));
  fs.writeFileSync(path.join(work, "bin/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  fs.symlinkSync("README.md", path.join(work, "link.md"));
  run("add", "-A");
  run("commit", "-q", "-m", "an executable and a link");
  run("push", "-q", "origin", "main");
  fs.rmSync(work, { recursive: true, force: true });
  server = await startGitServer(root, { token: TOKEN });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  github = fakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: `${server.url}/${FULL}.git`,
    issue: { number: 1, title: "t", body: "" },
  });
});
afterEach(() => {
  nock.cleanAll();
  for (const ref of git("for-each-ref", "--format=%(refname)", "refs/heads/magis/").split("\n").filter(Boolean)) git("update-ref", "-d", ref);
});

type Change = { path: string; after: string; encoding: FileEncoding };
const text = (file: string, after: string): Change => ({ path: file, after, encoding: "utf-8" });
/** Bytes as the team holds a file that is not UTF-8: Latin-1 text, one character a byte. */
const bytes = (file: string, content: Buffer): Change => ({ path: file, after: content.toString("latin1"), encoding: "latin1" });

/** Clones main and commits `changes` onto `branch` under `lease` (default: a new branch); `meanwhile` runs after the clone. */
function commit(branch: string, changes: Change[], lease?: (head: string) => BranchLease, meanwhile?: () => void) {
  return withShallowClone({ url: `${server.url}/${FULL}.git`, token: TOKEN }, "main", (checkout) => {
    meanwhile?.();
    return commitThroughApi({
      octokit,
      repo: { owner: "octo", repo: "demo" },
      repositoryId: github.repositoryId,
      checkout,
      branch,
      changes,
      message: "Fix the greeting (#1)\n\nFixes #1",
      lease: lease?.(checkout.head) ?? { head: null, force: false },
      guard,
    });
  });
}

/** The tree `base` would have with these files written as regular files, made by the real git: what the commit must hold. */
function intendedTree(base: string, files: Record<string, Buffer>): string {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-intended-"));
  try {
    const env = { ...gitEnv(), GIT_INDEX_FILE: path.join(scratch, "index") };
    const bare = path.join(root, `${FULL}.git`);
    const run = (input: string | Buffer, ...args: string[]) => execFileSync("git", args, { cwd: bare, env, input, encoding: "utf8" }).trim();
    run("", "read-tree", base);
    for (const [file, content] of Object.entries(files)) {
      run("", "update-index", "--add", "--cacheinfo", `100644,${run(content, "hash-object", "-w", "--stdin")},${file}`);
    }
    return run("", "write-tree");
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A person's commit on `branch` (created at main if absent), with the real git. */
function pushAsPerson(branch: string): string {
  const at = git("for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`);
  const from = at || git("rev-parse", "main");
  const tree = git("rev-parse", `${from}^{tree}`);
  const env = {
    ...gitEnv(),
    GIT_AUTHOR_NAME: "Mona",
    GIT_AUTHOR_EMAIL: "mona@example.com",
    GIT_COMMITTER_NAME: "Mona",
    GIT_COMMITTER_EMAIL: "mona@example.com",
  };
  const made = execFileSync("git", ["commit-tree", tree, "-p", from, "-m", "by hand"], { cwd: path.join(root, `${FULL}.git`), env, encoding: "utf8" }).trim();
  git("update-ref", `refs/heads/${branch}`, made);
  return made;
}

describe("commitThroughApi through GraphQL createCommitOnBranch", () => {
  it("commits text in any encoding, a binary file and a new file in one request, the tree byte for byte as intended, signed", async () => {
    const png = Buffer.concat([BINARY, Buffer.from([0x00, 0x01, 0xc3])]);
    const files = {
      "README.md": Buffer.from("Hello, world\n"),
      "notes.py": Buffer.from("# caf\xe9 au lait\nprint('bye')\n", "latin1"),
      "src/app.js": Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'bye';\r\n")]),
      "logo.png": png,
      "docs/new/guide.md": Buffer.from("# Guide ünïcödé\n"),
    };
    const oid = await commit("magis/issue-1", [
      text("README.md", "Hello, world\n"),
      bytes("notes.py", files["notes.py"]),
      { path: "src/app.js", after: "// app\r\nexport const greeting = 'bye';\r\n", encoding: "utf-8-bom" },
      bytes("logo.png", png),
      text("docs/new/guide.md", "# Guide ünïcödé\n"),
    ]);
    const base = git("rev-parse", "main");
    expect(git("rev-parse", "magis/issue-1")).toBe(oid);
    expect(git("rev-parse", `${oid}^`)).toBe(base);
    expect(git("rev-parse", `${oid}^{tree}`)).toBe(intendedTree(base, files));
    // Untouched files keep their modes: the executable and the link are as they were.
    expect(git("ls-tree", oid, "bin/run.sh", "link.md")).toMatch(/^100755 blob \S+\tbin\/run\.sh\n120000 blob \S+\tlink\.md$/);
    expect(github.requests.filter((r) => r.method !== "GET").map((r) => r.path)).toEqual(["/graphql"]);
    const { data } = await octokit.rest.repos.getCommit({ owner: "octo", repo: "demo", ref: oid });
    expect(data.commit.verification?.verified).toBe(true);
    expect(git("log", "-1", "--format=%B", oid)).toBe("Fix the greeting (#1)\n\nFixes #1\n\nMAGIS-Branch: magis/issue-1");
  });

  it("builds a revision on the head it cloned with createCommitOnBranch alone (expectedHeadOid the head)", async () => {
    git("update-ref", "refs/heads/magis/issue-2", git("rev-parse", "main"));
    const oid = await commit("magis/issue-2", [text("README.md", "Hi\n")], (cloned) => ({ head: cloned, force: false }));
    expect(git("rev-parse", "magis/issue-2")).toBe(oid);
    expect(git("rev-parse", `${oid}^`)).toBe(git("rev-parse", "main"));
    const [request, ...more] = github.find("POST", /^\/graphql$/);
    expect(more).toEqual([]);
    expect((request!.body as { query: string }).query).not.toMatch(/updateRefs/);
  });

  it("refuses a revision when someone pushed after the clone: the head moved underneath, and the branch keeps their commit", async () => {
    git("update-ref", "refs/heads/magis/issue-3", git("rev-parse", "main"));
    let theirs = "";
    const error = await commit(
      "magis/issue-3",
      [text("README.md", "Hi\n")],
      (cloned) => ({ head: cloned, force: false }),
      () => (theirs = pushAsPerson("magis/issue-3")),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BranchMovedError);
    expect((error as Error).message).toMatch(
      new RegExp(`^refusing to update 'magis/issue-3': it moved to ${theirs.slice(0, 7)} after MAGIS read it at [0-9a-f]{7}, and the bot never force-pushes$`),
    );
    expect(git("rev-parse", "magis/issue-3")).toBe(theirs);
  });

  it.each([
    ["at a person's commit", () => pushAsPerson("magis/issue-4")],
    ["at the base itself", () => (git("update-ref", "refs/heads/magis/issue-4", git("rev-parse", "main")), git("rev-parse", "main"))],
  ])("refuses a new branch that someone created meanwhile %s, and leaves it where they put it", async (_name, create) => {
    let theirs = "";
    const error = await commit("magis/issue-4", [text("README.md", "Hi\n")], undefined, () => (theirs = create())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BranchMovedError);
    expect((error as Error).message).toBe(
      `refusing to create 'magis/issue-4': a branch of that name appeared at ${theirs.slice(0, 7)} after it was found free, so someone else's commits may be on it; run again to choose the branch anew`,
    );
    expect(git("rev-parse", "magis/issue-4")).toBe(theirs);
  });

  it("falls back to the Git Data API for an executable file, which keeps its mode (createCommitOnBranch would write 100644)", async () => {
    const oid = await commit("magis/issue-5", [text("bin/run.sh", "#!/bin/sh\necho bye\n"), text("README.md", "Hi\n")]);
    expect(git("ls-tree", oid, "bin/run.sh")).toMatch(/^100755 blob /);
    expect(git("show", `${oid}:bin/run.sh`)).toBe("#!/bin/sh\necho bye");
    // UTF-8 text goes inside the tree request: no blob is uploaded first.
    expect(github.requests.filter((r) => r.method === "POST").map((r) => r.path.replace("/repos/octo/demo", ""))).toEqual([
      "/git/trees",
      "/git/commits",
      "/graphql",
    ]);
  });

  it("falls back to the Git Data API to replace the bot's branch whole, never moving it back to the base first", async () => {
    const first = await commit("magis/issue-6", [text("README.md", "Hi\n")]);
    const second = await commit("magis/issue-6", [text("README.md", "Hey\n")], () => ({ head: first, force: true }));
    expect(git("rev-parse", `${second}^`)).toBe(git("rev-parse", "main"));
    expect(github.find("POST", /\/git\/commits$/)).toHaveLength(1);
    const updates = github.find("POST", /^\/graphql$/).map((r) => (r.body as { variables: { refUpdates?: unknown[] } }).variables.refUpdates);
    expect(updates.at(-1)).toEqual([{ name: "refs/heads/magis/issue-6", beforeOid: first, afterOid: second, force: true }]);
  });

  it("refuses a symbolic link before sending anything", async () => {
    await expect(commit("magis/issue-7", [text("link.md", "x\n")])).rejects.toThrow("it is a symbolic link in the repository, not a regular file");
    expect(github.requests.filter((r) => r.method === "POST")).toEqual([]);
  });
});

describe("the fake GitHub's createCommitOnBranch, as GitHub's schema and answers have it", () => {
  const COMMIT = `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }`;
  const input = (expectedHeadOid: string, fileChanges: object) => ({
    branch: { repositoryNameWithOwner: FULL, branchName: "magis/issue-8" },
    expectedHeadOid,
    message: { headline: "Change" },
    fileChanges,
  });
  const refusal = (body: object) => octokit.graphql(COMMIT, { input: body }).catch((e: { errors?: unknown }) => e.errors);

  it("deletes and adds files on the branch's head, and refuses a stale head or a path that does not exist as GitHub does", async () => {
    const head = pushAsPerson("magis/issue-8");
    const made = await octokit.graphql<{ createCommitOnBranch: { commit: { oid: string } } }>(COMMIT, {
      input: input(head, { deletions: [{ path: "notes.py" }], additions: [{ path: "extra/new.txt", contents: Buffer.from("new\n").toString("base64") }] }),
    });
    const oid = made.createCommitOnBranch.commit.oid;
    expect(git("rev-parse", "magis/issue-8")).toBe(oid);
    expect(git("diff", "--name-status", head, oid)).toBe("A\textra/new.txt\nD\tnotes.py");
    expect(await refusal(input(head, {}))).toEqual([
      expect.objectContaining({
        type: "STALE_DATA",
        path: ["createCommitOnBranch"],
        message: `Expected branch to point to "${head}" but it did not.  Pull and try again.`,
      }),
    ]);
    expect(await refusal(input(oid, { deletions: [{ path: "notes.py" }] }))).toEqual([
      expect.objectContaining({ type: "UNPROCESSABLE", message: `A path was requested for deletion which does not exist as of commit oid \`${oid}\`.` }),
    ]);
    expect(git("rev-parse", "magis/issue-8")).toBe(oid);
  });
});
