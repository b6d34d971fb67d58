import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { publishPullRequest, type PublishInput } from "../../../src/github/publish-pull-request.js";
import type { Octokit } from "../../../src/github/types.js";
import { StageError } from "../../../src/pipeline/errors.js";
import { withShallowClone } from "../../../src/workspace/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";
import { fakeGitHub, type FakeGitHub } from "../../support/github-api.js";

const TOKEN = "ghs_publishTestToken0123456789abcdefgh";
const FULL = "octo/demo";
let root: string;
let git: GitServer;
let github: FakeGitHub;
let octokit: Octokit;

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-publish-"));
  createBareRepository(root, FULL, { "README.md": "Helo\n", "src/a.js": "a\n", ".github/workflows/ci.yml": "on: push\n" });
  git = await startGitServer(root, { token: TOKEN });
  github = fakeGitHub({
    owner: "octo", repo: "demo", installationId: 1, token: TOKEN, gitRoot: root, cloneUrl: `${git.url}/${FULL}.git`,
    issue: { number: 5, title: "Typo in README", body: "" },
  });
  octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
});

afterEach(async () => {
  await git.close();
  nock.cleanAll();
  fs.rmSync(root, { recursive: true, force: true });
});

function publish(changes: PublishInput["changes"], config: Record<string, unknown> = {}, body = "## Report", title = "Typo in README", closesIssue = true) {
  const remote = { url: `${git.url}/${FULL}.git`, token: TOKEN };
  return withShallowClone(remote, "main", (checkout) =>
    publishPullRequest({
      octokit, repo: { owner: "octo", repo: "demo" }, issue: { number: 5, title }, checkout, remote,
      defaultBranch: "main", config: parseConfig(config), bot: { login: github.botLogin, name: github.botLogin, email: github.botEmail },
      changes, body, closesIssue,
    }),
  );
}

const fix: PublishInput["changes"] = [{ path: "README.md", before: "Helo\n", after: "Hello\n", encoding: "utf-8" }];

/** A maintainer pushes a commit of their own onto a branch, with the real git. */
function humanCommit(branch: string) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-human-"));
  const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
  run("clone", "-q", "--branch", branch, path.join(root, `${FULL}.git`), ".");
  fs.writeFileSync(path.join(work, "NOTES.md"), "by hand\n");
  run("add", "NOTES.md");
  run("commit", "-q", "-m", "Human tweak");
  run("push", "-q", "origin", branch);
  fs.rmSync(work, { recursive: true, force: true });
}

describe("publishPullRequest", () => {
  it("opens a draft PR from a new bot branch with one commit and Fixes #N", async () => {
    const published = await publish(fix, { draft: true });
    expect(published).toMatchObject({ branch: "magis/issue-5", number: 100, updated: false });
    expect(git.git(FULL, "rev-parse", "magis/issue-5")).toBe(published.commit);
    expect(git.git(FULL, "rev-list", "--count", "main..magis/issue-5")).toBe("1");
    expect(git.git(FULL, "log", "-1", "--format=%B", "magis/issue-5")).toContain("Fixes #5");
    expect(github.pulls[0]).toMatchObject({ head: "magis/issue-5", base: "main", title: "Typo in README", draft: true });
    expect(github.pulls[0]!.body).toMatch(/^Fixes #5\n\n## Report/);
  });

  it("keeps a closing keyword in the issue's title from closing another issue through the commit message", async () => {
    await publish(fix, {}, "## Report", "Typo in README; fixes #3 as well");
    const message = git.git(FULL, "log", "-1", "--format=%B", "magis/issue-5");
    expect(message).toContain("Typo in README; fixes `#3` as well (#5)");
    expect(message.match(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#\d+/gi)).toEqual(["Fixes #5"]);
  });

  it("on a retry, replaces its own branch and updates its open PR instead of opening another", async () => {
    const first = await publish(fix);
    const second = await publish([{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }], {}, "## Report 2\n\nFixes #5");
    expect(second).toMatchObject({ branch: "magis/issue-5", number: first.number, updated: true });
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]!.body).toBe("## Report 2\n\nFixes #5");
    expect(git.git(FULL, "rev-list", "--count", "main..magis/issue-5")).toBe("1");
    expect(git.git(FULL, "show", "magis/issue-5:README.md")).toBe("Hello!");
  });

  it("never overwrites a branch a human pushed to: opens …issue-N-2 and a new PR", async () => {
    await publish(fix);
    humanCommit("magis/issue-5");
    const humanHead = git.git(FULL, "rev-parse", "magis/issue-5");
    const again = await publish([{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }]);
    expect(again).toMatchObject({ branch: "magis/issue-5-2", updated: false, number: 101 });
    expect(git.git(FULL, "rev-parse", "magis/issue-5")).toBe(humanHead);
    expect(github.pulls.map((p) => p.head)).toEqual(["magis/issue-5", "magis/issue-5-2"]);
  });

  it("pushes nothing for an empty change or a protected path", async () => {
    await expect(publish([{ path: "README.md", before: "Helo\n", after: "Helo\n", encoding: "utf-8" }])).rejects.toMatchObject({ stage: "publish" });
    const protectedChange: PublishInput["changes"] = [{ path: ".github/workflows/ci.yml", before: "on: push\n", after: "on: [push]\n", encoding: "utf-8" }];
    const error = await publish(protectedChange).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).message).toContain(".github/workflows/ci.yml");
    expect(git.git(FULL, "for-each-ref", "--format=%(refname)", "refs/heads/magis/")).toBe("");
    expect(github.pulls).toEqual([]);
  });

  it("says Part of #N, in the PR and the commit, when protected files still need a human", async () => {
    await publish(fix, {}, "## Report", "Typo in README", false);
    const message = git.git(FULL, "log", "-1", "--format=%B", "magis/issue-5");
    expect(message).toContain("Part of #5");
    expect(github.pulls[0]!.body).toMatch(/^Part of #5\n\n## Report/);
    for (const text of [message, github.pulls[0]!.body]) expect(text).not.toMatch(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#5/i);
  });

  it("fails the publish stage with the server's reason and what to do when a hook refuses the push", async () => {
    fs.writeFileSync(path.join(root, `${FULL}.git`, "hooks", "pre-receive"), "#!/bin/sh\necho 'pushes by apps are disabled here' >&2\nexit 1\n", { mode: 0o755 });
    const error = await publish(fix).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect(error).toMatchObject({ stage: "publish" });
    expect((error as StageError).message).toContain("the push of 'magis/issue-5' was refused: pre-receive hook declined; server said: pushes by apps are disabled here");
    expect((error as StageError).nextStep).toContain("`magis/…`");
    expect(github.pulls).toEqual([]);
  });
});
