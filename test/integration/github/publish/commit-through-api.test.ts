import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FileEncoding } from "../../../../src/edit/file-encoding.js";
import { CommitRefusedError } from "../../../../src/github/publish/commit-refused-error.js";
import { commitThroughApi, type ApiCommitRequest } from "../../../../src/github/publish/commit-through-api.js";
import { BranchMovedError, type BranchLease } from "../../../../src/github/branches/move-branch.js";
import type { Octokit } from "../../../../src/github/types.js";
import { withShallowClone, type GitRemote } from "../../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../../support/git-server.js";

// The checkout comes from the real git (git http-backend); GitHub's Git Data and GraphQL endpoints are nock.
const API = "https://api.github.com";
const REPO = "/repos/octo/demo";
const TOKEN = "ghs_gitDataToken0123456789abcdefghij";
const REPOSITORY_ID = "R_kgDOdemo";
const ZEROS = "0".repeat(40);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const latin1 = (text: string) => Buffer.from(text, "latin1");
const sha = (label: string) => crypto.createHash("sha1").update(label).digest("hex");
const guard = { prefix: "magis/", defaultBranch: "main", protectedPaths: [".github/**"] };

let root: string;
let server: GitServer;
let remote: GitRemote;
let head: string;
let headTree: string;
const octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-git-data-"));
  const bare = createBareRepository(root, "octo/demo", {
    "README.md": "Hello\n",
    "notes.py": latin1("# caf\xe9 au lait\nprint('hello')\n"),
    "src/app.js": Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'hello';\r\n")]),
    "dos.txt": "one\r\ntwo\r\n",
    "src/a.ts": "export const a = 1;\n",
    ".github/workflows/ci.yml": "on: push\n",
  });
  // What a plain file list cannot hold: an executable, links (to a file, to a folder) and a submodule.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-git-data-work-"));
  const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
  run("clone", "-q", bare, ".");
  fs.mkdirSync(path.join(work, "bin"));
  fs.writeFileSync(path.join(work, "bin/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  fs.symlinkSync("README.md", path.join(work, "link.md"));
  fs.symlinkSync("src", path.join(work, "src-link"));
  run("add", "-A");
  run("update-index", "--add", "--cacheinfo", `160000,${sha("submodule")},vendor/lib`);
  run("commit", "-q", "-m", "modes");
  run("push", "-q", "origin", "main");
  fs.rmSync(work, { recursive: true, force: true });
  server = await startGitServer(root, { token: TOKEN });
  remote = { url: `${server.url}/octo/demo.git`, token: TOKEN };
  head = server.git("octo/demo", "rev-parse", "main");
  headTree = server.git("octo/demo", "rev-parse", "main^{tree}");
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  nock.cleanAll();
});

/** What the Git Data endpoints were sent, in order. */
interface Seen {
  blobs: { content: string; encoding: string }[];
  trees: { base_tree: string; tree: { path: string; mode: string; type: string; sha?: string; content?: string }[] }[];
  commits: Record<string, unknown>[];
  updates: { query: string; variables: { repositoryId: string; refUpdates: unknown[] } }[];
  branchReads: string[];
}

/**
 * Intercepts GitHub's Git Data endpoints and GraphQL as GitHub answers them: each blob and tree gets an id, the
 * commit gets COMMIT, updateRefs answers `update` (default: success), a branch read answers `branchAt` (null: 404).
 */
function gitHub(options: { update?: object; updateStatus?: number; commitStatus?: [number, object]; branchAt?: string | null } = {}): Seen {
  const seen: Seen = { blobs: [], trees: [], commits: [], updates: [], branchReads: [] };
  const scope = nock(API).persist();
  scope.post(`${REPO}/git/blobs`).reply(201, (_uri, body) => {
    seen.blobs.push(body as Seen["blobs"][number]);
    return { sha: sha(`blob ${seen.blobs.length}`) };
  });
  scope.post(`${REPO}/git/trees`).reply(201, (_uri, body) => {
    seen.trees.push(body as Seen["trees"][number]);
    return { sha: TREE };
  });
  scope.post(`${REPO}/git/commits`).reply((_uri, body) => {
    seen.commits.push(body as Record<string, unknown>);
    return options.commitStatus ?? [201, { sha: COMMIT, verification: { verified: true, reason: "valid" } }];
  });
  scope.post("/graphql").reply((_uri, body) => {
    seen.updates.push(body as Seen["updates"][number]);
    return [options.updateStatus ?? 200, options.update ?? { data: { updateRefs: { clientMutationId: null } } }];
  });
  scope.get(/^\/repos\/octo\/demo\/branches\/.+$/).reply((uri) => {
    seen.branchReads.push(decodeURIComponent(uri));
    return options.branchAt ? [200, { name: "x", commit: { sha: options.branchAt } }] : [404, { message: "Branch not found" }];
  });
  return seen;
}
const TREE = sha("tree");
const COMMIT = sha("commit");

type Change = { path: string; after: string; encoding: FileEncoding };
const text = (filePath: string, after: string): Change => ({ path: filePath, after, encoding: "utf-8" });

/** Clones main and commits `changes` through the API onto `branch` under `lease`. */
function commit(branch: string, changes: Change[], lease: BranchLease = { head: null, force: false }, message = "Fix the greeting\n\nFixes #1") {
  return withShallowClone(remote, "main", (checkout) => {
    const request: ApiCommitRequest = {
      octokit,
      repo: { owner: "octo", repo: "demo" },
      repositoryId: REPOSITORY_ID,
      checkout,
      branch,
      changes,
      message,
      lease,
      guard,
    };
    return commitThroughApi(request);
  });
}

// An executable file (bin/run.sh) keeps its mode only through the Git Data API: every test here changes one.
describe("commitThroughApi: the bot's commit through the Git Data API", () => {
  it("sends UTF-8 text inside the tree, uploads only the other files' exact bytes, keeps each file's mode, commits without author, creates the branch", async () => {
    const seen = gitHub();
    const oid = await commit("magis/issue-1", [
      { path: "notes.py", after: "# caf\xe9 au lait\nprint('bye')\n", encoding: "latin1" },
      { path: "src/app.js", after: "// app\r\nexport const greeting = 'bye';\r\n", encoding: "utf-8-bom" },
      text("dos.txt", "one\r\ntwo\r\nthree\r\n"),
      text("bin/run.sh", "#!/bin/sh\necho bye\n"),
      text("docs/new/guide.md", "# Gu\u00efde \u{1f4d8}\n"),
      text("data.bin", "a\0b\n"),
      // Already this text: not uploaded, not in the tree.
      text("README.md", "Hello\n"),
    ]);
    expect(oid).toBe(COMMIT);
    // Latin-1, a byte-order mark and a NUL go as blobs of their exact bytes; the UTF-8 text goes in the tree request.
    expect(seen.blobs.map((b) => b.encoding)).toEqual(["base64", "base64", "base64"]);
    expect(seen.blobs.map((b) => Buffer.from(b.content, "base64"))).toEqual([
      latin1("# caf\xe9 au lait\nprint('bye')\n"),
      Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'bye';\r\n")]),
      Buffer.from("a\0b\n"),
    ]);
    // Uploaded at most four at a time, but each entry names its own blob.
    const blobOf = (content: string) => sha(`blob ${seen.blobs.findIndex((b) => Buffer.from(b.content, "base64").toString("latin1") === content) + 1}`);
    expect(seen.trees).toEqual([
      {
        base_tree: headTree,
        tree: [
          { path: "notes.py", mode: "100644", type: "blob", sha: blobOf("# caf\xe9 au lait\nprint('bye')\n") },
          {
            path: "src/app.js",
            mode: "100644",
            type: "blob",
            sha: blobOf(Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'bye';\r\n")]).toString("latin1")),
          },
          { path: "dos.txt", mode: "100644", type: "blob", content: "one\r\ntwo\r\nthree\r\n" },
          { path: "bin/run.sh", mode: "100755", type: "blob", content: "#!/bin/sh\necho bye\n" },
          { path: "docs/new/guide.md", mode: "100644", type: "blob", content: "# Gu\u00efde \u{1f4d8}\n" },
          { path: "data.bin", mode: "100644", type: "blob", sha: blobOf("a\0b\n") },
        ],
      },
    ]);
    // No author, no committer, no signature: GitHub signs the commit only then. The trailer names the branch.
    expect(seen.commits).toEqual([{ message: "Fix the greeting\n\nFixes #1\n\nMAGIS-Branch: magis/issue-1", tree: TREE, parents: [head] }]);
    expect(seen.updates).toHaveLength(1);
    expect(seen.updates[0]!.query).toMatch(
      /mutation\(\$repositoryId: ID!, \$refUpdates: \[RefUpdate!\]!\) \{ updateRefs\(input: \{repositoryId: \$repositoryId, refUpdates: \$refUpdates\}\)/,
    );
    expect(seen.updates[0]!.variables).toEqual({
      repositoryId: REPOSITORY_ID,
      refUpdates: [{ name: "refs/heads/magis/issue-1", afterOid: COMMIT, beforeOid: ZEROS, force: false }],
    });
    expect(seen.branchReads).toEqual([]);
  });

  it.each([
    ["replaces the bot's own branch only while it is at the commit checked (forced)", { head: sha("checked"), force: true }],
    ["builds a revision on the head it cloned (never forced)", "clone-head" as const],
  ])("%s", async (_name, given) => {
    const lease = given === "clone-head" ? { head, force: false } : given;
    const seen = gitHub();
    await commit("magis/issue-2", [text("bin/run.sh", "#!/bin/sh\necho 2\n")], lease);
    expect(seen.commits).toEqual([{ message: "Fix the greeting\n\nFixes #1\n\nMAGIS-Branch: magis/issue-2", tree: TREE, parents: [head] }]);
    expect(seen.updates[0]!.variables.refUpdates).toEqual([{ name: "refs/heads/magis/issue-2", afterOid: COMMIT, beforeOid: lease.head, force: lease.force }]);
  });

  it.each([
    [
      "a protected path",
      "magis/issue-3",
      [text(".github/workflows/ci.yml", "on: [push]\n")],
      "refusing to commit '.github/workflows/ci.yml': it matches protected_paths in .github/magis.yml",
    ],
    [
      "the default branch",
      "main",
      [text("README.md", "Hi\n")],
      "refusing to commit to 'main': it is the default branch; the bot only commits to its own 'magis/…' branches",
    ],
    [
      "a branch without the prefix",
      "feature/x",
      [text("README.md", "Hi\n")],
      "refusing to commit to 'feature/x': the bot only commits to branches named 'magis/…'",
    ],
    ["the bare prefix", "magis/", [text("README.md", "Hi\n")], "refusing to commit to 'magis/': the bot only commits to branches named 'magis/…'"],
    ["a path out of the repository", "magis/issue-3", [text("../escape", "x\n")], "'../escape' points outside the repository"],
    ["a path into .git", "magis/issue-3", [text(".git/config", "x\n")], "'.git/config' is inside .git"],
    ["a symbolic link", "magis/issue-3", [text("link.md", "x\n")], "refusing to commit 'link.md': it is a symbolic link in the repository, not a regular file"],
    [
      "a path under a symbolic link",
      "magis/issue-3",
      [text("src-link/b.ts", "x\n")],
      "refusing to commit under 'src-link': it is a symbolic link in the repository",
    ],
    ["a submodule", "magis/issue-3", [text("vendor/lib", "x\n")], "refusing to commit 'vendor/lib': it is a submodule in the repository, not a regular file"],
    ["a folder", "magis/issue-3", [text("src", "x\n")], "refusing to commit 'src': it is a folder in the repository, not a regular file"],
    ["a path under a file", "magis/issue-3", [text("README.md/x", "x\n")], "'README.md/x' goes below 'README.md', which is a file, not a folder"],
    [
      "text its encoding cannot hold",
      "magis/issue-3",
      [{ path: "notes.py", after: "# caf\xe9 \u20ac\n", encoding: "latin1" as const }],
      "refusing to commit 'notes.py': cannot write the text as Latin-1 (ISO-8859-1), one byte per character: line 1, column 8 has '€' (U+20AC)",
    ],
    [
      "an empty change",
      "magis/issue-3",
      [text("README.md", "Hello\n"), text("src/a.ts", "export const a = 1;\n")],
      "refusing to commit: the change is empty (the files already have this content)",
    ],
  ])("refuses %s before sending anything", async (_name, branch, changes, message) => {
    const seen = gitHub();
    await expect(commit(branch, changes)).rejects.toThrow(message);
    expect(seen).toEqual({ blobs: [], trees: [], commits: [], updates: [], branchReads: [] });
  });

  /** updateRefs refused as GitHub refuses a mutation: HTTP 200, no data, and errors. */
  const refused = (type: string, message: string) => ({
    data: { updateRefs: null },
    errors: [{ type, path: ["updateRefs"], locations: [{ line: 1, column: 58 }], message }],
  });

  it("refuses to replace the bot's branch when someone pushed after it was checked, naming both commits", async () => {
    const checked = sha("checked");
    const pushed = sha("someone's push");
    const seen = gitHub({
      update: refused("STALE_DATA", 'Expected branch to point to "' + checked + '" but it did not. Pull and try again.'),
      branchAt: pushed,
    });
    const error = await commit("magis/issue-4", [text("bin/run.sh", "#!/bin/sh\necho 4\n")], { head: checked, force: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BranchMovedError);
    expect((error as Error).message).toBe(
      `refusing to force-push 'magis/issue-4': it moved to ${pushed.slice(0, 7)} after it was checked at ${checked.slice(0, 7)}, so someone else's commits may be on it now`,
    );
    expect(seen.branchReads).toEqual([`${REPO}/branches/magis/issue-4`]);
  });

  it("refuses a revision when the branch moved or was deleted since it was cloned", async () => {
    const pushed = sha("someone's push");
    gitHub({ update: refused("STALE_DATA", "stale"), branchAt: pushed });
    const moved = await commit("magis/issue-5", [text("bin/run.sh", "#!/bin/sh\necho 5\n")], { head, force: false }).catch((e: unknown) => e);
    expect(moved).toMatchObject({ name: "BranchMovedError", found: pushed });
    expect((moved as Error).message).toBe(
      `refusing to update 'magis/issue-5': it moved to ${pushed.slice(0, 7)} after MAGIS read it at ${head.slice(0, 7)}, and the bot never force-pushes`,
    );
    nock.cleanAll();
    gitHub({ update: refused("NOT_FOUND", "gone"), branchAt: null });
    const deleted = await commit("magis/issue-5", [text("bin/run.sh", "#!/bin/sh\necho 5\n")], { head, force: false }).catch((e: unknown) => e);
    expect(deleted).toMatchObject({ name: "BranchMovedError", found: null });
    expect((deleted as Error).message).toBe(
      `refusing to update 'magis/issue-5': it was deleted after MAGIS read it at ${head.slice(0, 7)}, and MAGIS does not create it again`,
    );
  });

  it("refuses to create a branch that someone created meanwhile", async () => {
    const theirs = sha("their branch");
    gitHub({ update: refused("UNPROCESSABLE", "Reference already exists"), branchAt: theirs });
    const error = await commit("magis/issue-6", [text("bin/run.sh", "#!/bin/sh\necho 6\n")]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "BranchMovedError", found: theirs });
    expect((error as Error).message).toBe(
      `refusing to create 'magis/issue-6': a branch of that name appeared at ${theirs.slice(0, 7)} after it was found free, so someone else's commits may be on it; run again to choose the branch anew`,
    );
  });

  it("says which rule refused the branch when it did not move (a ruleset refusing updateRefs)", async () => {
    const seen = gitHub({
      update: refused(
        "UNPROCESSABLE",
        "Repository rule violations found\n\nChanges must be made through a pull request.\n\nCannot create ref due to creations being restricted.\n\n",
      ),
      branchAt: null,
    });
    const error = await commit("magis/issue-7", [text("bin/run.sh", "#!/bin/sh\necho 7\n")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitRefusedError);
    expect((error as Error).message).toBe(
      "GitHub refused the commit to 'magis/issue-7': Repository rule violations found: Changes must be made through a pull request.; Cannot create ref due to creations being restricted.",
    );
    expect(seen.commits).toHaveLength(1);
  });

  it("takes a 422 'Repository rule violations' from the REST endpoints as the same refusal, and moves no branch", async () => {
    const violation = {
      message: "Repository rule violations found\n\nCommits must have verified signatures.\n\n",
      documentation_url: "https://docs.github.com/rest/git/commits#create-a-commit",
      status: "422",
    };
    const seen = gitHub({ commitStatus: [422, violation] });
    const error = await commit("magis/issue-8", [text("bin/run.sh", "#!/bin/sh\necho 8\n")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitRefusedError);
    expect((error as Error).message).toBe(
      "GitHub refused the commit to 'magis/issue-8': Repository rule violations found: Commits must have verified signatures.",
    );
    expect(seen.updates).toEqual([]);
  });

  it("passes on a failure that is no verdict (GitHub down) without guessing why", async () => {
    const seen = gitHub({ updateStatus: 502, update: { message: "Server Error" } });
    await expect(commit("magis/issue-9", [text("bin/run.sh", "#!/bin/sh\necho 9\n")])).rejects.toMatchObject({ status: 502 });
    expect(seen.branchReads).toEqual([]);
  });
});
