import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../../src/config.js";
import { publishPullRequest, type PublishInput } from "../../../../src/github/publish/publish-pull-request.js";
import type { Octokit } from "../../../../src/github/types.js";
import { StageError } from "../../../../src/pipeline/errors.js";
import { withShallowClone } from "../../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../../support/git-server.js";
import { fakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "../../../support/github-api.js";
import { takeViolations } from "../../../support/github-spec/violations.js";

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
  github = startFake();
  octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
});

/** The fake GitHub over the test's repository (replacing any started before), with more options. */
function startFake(more: Partial<FakeGitHubOptions> = {}): FakeGitHub {
  nock.cleanAll();
  return fakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: `${git.url}/${FULL}.git`,
    issue: { number: 5, title: "Typo in README", body: "" },
    ...more,
  });
}

afterEach(async () => {
  await git.close();
  nock.cleanAll();
  fs.rmSync(root, { recursive: true, force: true });
});

function publish(
  changes: PublishInput["changes"],
  config: Record<string, unknown> = {},
  body = "## Report",
  title = "Typo in README",
  closesIssue = true,
  onError?: PublishInput["onError"],
) {
  const remote = { url: `${git.url}/${FULL}.git`, token: TOKEN };
  return withShallowClone(remote, "main", (checkout) =>
    publishPullRequest({
      octokit,
      repo: { owner: "octo", repo: "demo" },
      issue: { number: 5, title },
      checkout,
      repositoryId: github.repositoryId,
      defaultBranch: "main",
      config: parseConfig(config),
      bot: { login: github.botLogin },
      changes,
      body,
      closesIssue,
      onError,
    }),
  );
}

const fix: PublishInput["changes"] = [{ path: "README.md", before: "Helo\n", after: "Hello\n", encoding: "utf-8" }];

/**
 * A maintainer pushes a commit of their own onto a branch, with the real git (unsigned); `as` writes it under another
 * address (the bot's, say) with another message.
 */
function humanCommit(branch: string, as?: { email: string; message: string }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-human-"));
  const identity = as ? { GIT_AUTHOR_EMAIL: as.email, GIT_COMMITTER_EMAIL: as.email } : {};
  const run = (...args: string[]) => execFileSync("git", args, { cwd: work, env: { ...gitEnv(), ...identity }, stdio: "pipe" });
  run("clone", "-q", "--branch", branch, path.join(root, `${FULL}.git`), ".");
  fs.writeFileSync(path.join(work, "NOTES.md"), "by hand\n");
  run("add", "NOTES.md");
  run("commit", "-q", "-m", as?.message ?? "Human tweak");
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

  it("reads before it writes, and writes nothing it need not: no pull request looked for on a new branch, no blob for UTF-8 text", async () => {
    // Writes (and GraphQL) wait a second behind the last under GitHub's pacing; reads wait for none.
    const writes = (from: number) =>
      github.requests
        .slice(from)
        .filter((r) => r.method !== "GET")
        .map((r) => `${r.method} ${r.path}`);
    const reads = (from: number) =>
      github.requests
        .slice(from)
        .filter((r) => r.method === "GET")
        .map((r) => `${r.method} ${r.path.split("?")[0]}`);
    const { commit: first } = await publish(fix);
    // A new branch: created, committed to and its pull request opened in one GraphQL request.
    expect(writes(0)).toEqual(["POST /graphql"]);
    expect(reads(0)).toEqual(["GET /repos/octo/demo/branches/magis/issue-5"]);
    const before = github.requests.length;
    await publish([{ path: "README.md", before: "Helo\n", after: "Hellö!\n", encoding: "utf-8" }], {}, "## Report 2\n\nFixes #5");
    // The retry: its reads first (then, after the writes began, only the pull request's text again just before the
    // move, which a refused move gives back, and the earlier report's comments), then the tree with the text inside
    // it, the commit, and the branch moved with its pull request updated in the same request.
    const firstWrite = github.requests.findIndex((r, i) => i >= before && r.method !== "GET");
    expect(reads(before)).toEqual([
      "GET /repos/octo/demo/branches/magis/issue-5",
      `GET /repos/octo/demo/compare/main...${first}`,
      "GET /repos/octo/demo/pulls",
      "GET /repos/octo/demo/pulls/100",
      "GET /repos/octo/demo/issues/100/comments",
    ]);
    expect(reads(firstWrite)).toEqual(["GET /repos/octo/demo/pulls/100", "GET /repos/octo/demo/issues/100/comments"]);
    expect(writes(before)).toEqual(["POST /repos/octo/demo/git/trees", "POST /repos/octo/demo/git/commits", "POST /graphql"]);
    expect(git.git(FULL, "show", "magis/issue-5:README.md")).toBe("Hellö!");
    expect(github.pulls[0]!.body).toBe("## Report 2\n\nFixes #5");
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

  it("commits through one GraphQL request that creates the branch, signed by GitHub: no git push, no Git Data API, the app as author", async () => {
    const published = await publish(fix);
    expect(git.requests.filter((r) => r.path.endsWith("git-receive-pack"))).toEqual([]);
    expect(github.find("POST", /\/git\//)).toEqual([]);
    // As github.com records a commit it makes for createCommitOnBranch: the credential's owner, committed by GitHub.
    expect(git.git(FULL, "log", "-1", "--format=%an <%ae> / %cn <%ce>", "magis/issue-5")).toBe(
      `${github.botLogin} <${github.botEmail}> / GitHub <noreply@github.com>`,
    );
    const [request, ...more] = github.find("POST", /^\/graphql$/);
    expect(more).toEqual([]);
    const { variables } = request!.body as { variables: { create: unknown; commit: { expectedHeadOid: string; message: unknown } } };
    const base = git.git(FULL, "rev-parse", "main");
    expect(variables.create).toEqual([{ name: "refs/heads/magis/issue-5", beforeOid: "0".repeat(40), afterOid: base }]);
    expect(variables.commit).toMatchObject({
      branch: { repositoryNameWithOwner: FULL, branchName: "magis/issue-5" },
      expectedHeadOid: base,
      message: { headline: "Typo in README (#5)", body: "Changed by MAGIS: README.md.\n\nFixes #5\n\nMAGIS-Branch: magis/issue-5" },
      fileChanges: { additions: [{ path: "README.md", contents: Buffer.from("Hello\n").toString("base64") }] },
    });
    expect(git.git(FULL, "rev-parse", "magis/issue-5^")).toBe(base);
    expect(published.commit).toBe(git.git(FULL, "rev-parse", "magis/issue-5"));
    // The pull request is opened in the same request, after the commit: no REST POST …/pulls.
    expect((request!.body as { variables: { pull: unknown } }).variables.pull).toEqual({
      repositoryId: github.repositoryId,
      baseRefName: "main",
      headRefName: "magis/issue-5",
      title: "Typo in README",
      body: "Fixes #5\n\n## Report",
      draft: false,
    });
    expect(github.find("POST", /\/pulls$/)).toEqual([]);
    expect(published).toMatchObject({ number: 100, url: "https://github.com/octo/demo/pull/100", updated: false });
  });

  it("keeps the commit and says what to set when GitHub refuses the workflow's token the pull request in the commit's request", async () => {
    github = startFake({
      faults: [{ method: "POST", path: /\/pulls$/, status: 403, times: 1, message: "GitHub Actions is not permitted to create or approve pull requests." }],
    });
    const failure = await publish(fix).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StageError);
    expect((failure as StageError).message).toContain(
      "The commit is on the branch `magis/issue-5`, but GitHub refused to let the workflow's token open the pull request",
    );
    expect((failure as StageError).nextStep).toContain("Allow GitHub Actions to create and approve pull requests");
    expect(git.git(FULL, "show", "magis/issue-5:README.md")).toBe("Hello");
    expect(github.pulls).toEqual([]);
    expect(github.find("POST", /\/pulls$/)).toEqual([]);
  });

  it("replaces its own branch only while it is where it was checked: a push in between fails the run and stays", async () => {
    const first = await publish(fix);
    // A maintainer pushes right after the branch was found to hold only the bot's commits, before the bot moves it.
    let human = "";
    const checked = git.git(FULL, "rev-parse", "magis/issue-5");
    octokit.hook.after("request", (_response, options) => {
      if (!String(options.url).includes("/compare/") || human) return;
      humanCommit("magis/issue-5");
      human = git.git(FULL, "rev-parse", "magis/issue-5");
    });
    const error = await publish([{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }]).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `refusing to force-push 'magis/issue-5': it moved to ${human.slice(0, 7)} after it was checked at ${checked.slice(0, 7)}, so someone else's commits may be on it now`,
    );
    expect(git.git(FULL, "rev-parse", "magis/issue-5")).toBe(human);
    expect(git.git(FULL, "rev-parse", `${human}^`)).toBe(first.commit);
    expect(github.pulls).toHaveLength(1);
    // The pull request, updated in the move's request although the branch did not move, shows the first report again.
    expect(github.pulls[0]!).toMatchObject({ title: "Typo in README", body: "Fixes #5\n\n## Report" });
  });

  it("gives the pull request its text back when a branch rule refuses the retry's move", async () => {
    await publish(fix);
    const before = { ...github.pulls[0]! };
    github.rules.push({ branch: /^magis\//, type: "UNPROCESSABLE", message: "Repository rule violations found\n\nCannot update this protected ref.\n\n" });
    const error = await publish(
      [{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }],
      {},
      "## Report 2",
      "Typo in README, again",
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).message).toBe(
      "GitHub refused the commit to 'magis/issue-5': Repository rule violations found: Cannot update this protected ref.",
    );
    expect(github.pulls[0]!).toMatchObject({ title: before.title, body: before.body });
    expect(git.git(FULL, "show", "magis/issue-5:README.md")).toBe("Hello");
  });

  it("gives back, after a refused move, the text a person gave the pull request while the bot wrote its commit", async () => {
    await publish(fix);
    github.rules.push({ branch: /^magis\//, type: "UNPROCESSABLE", message: "Repository rule violations found\n\nCannot update this protected ref.\n\n" });
    // The maintainer edits the description after the bot found the pull request, while its tree and commit are written.
    octokit.hook.after("request", (_response, options) => {
      if (String(options.url).endsWith("/git/commits"))
        Object.assign(github.pulls[0]!, { title: "Typo in README (edited)", body: "Fixes #5\n\nA maintainer's note." });
    });
    const error = await publish([{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }], {}, "## Report 2", "Typo, again").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StageError);
    expect(github.pulls[0]!).toMatchObject({ title: "Typo in README (edited)", body: "Fixes #5\n\nA maintainer's note." });
  });

  it("says so with the refusal when the pull request's text cannot be given back after a refused move", async () => {
    github = startFake({ faults: [{ method: "PATCH", path: /\/pulls\/\d+$/, status: 500, times: 1, message: "Server Error" }] });
    const first = await publish(fix);
    github.rules.push({ branch: /^magis\//, type: "UNPROCESSABLE", message: "Repository rule violations found\n\nCannot update this protected ref.\n\n" });
    const error = await publish(
      [{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }],
      {},
      "## Report 2",
      "Typo in README, again",
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).message).toBe(
      `GitHub refused the commit to 'magis/issue-5': Repository rule violations found: Cannot update this protected ref.; pull request #${first.number} now describes this run's change, which is not on the branch, and its title and description could not be put back (Server Error): edit them back by hand.`,
    );
    expect(github.pulls[0]!).toMatchObject({ title: "Typo in README, again" });
    expect(github.find("PATCH", /\/pulls\/\d+$/)).toHaveLength(1);
  });

  it("fails the publish stage with GitHub's reason and what to do when a branch rule refuses the bot's branch", async () => {
    github.rules.push({
      branch: /^magis\//,
      type: "UNPROCESSABLE",
      message: "Repository rule violations found\n\nCannot create ref due to creations being restricted.\n\n",
    });
    const error = await publish(fix).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect(error).toMatchObject({ stage: "publish" });
    expect((error as StageError).message).toBe(
      "GitHub refused the commit to 'magis/issue-5': Repository rule violations found: Cannot create ref due to creations being restricted.",
    );
    expect((error as StageError).nextStep).toContain("`magis/…`");
    expect(git.git(FULL, "for-each-ref", "--format=%(refname)", "refs/heads/magis/")).toBe("");
    expect(github.pulls).toEqual([]);
  });

  it("says that workflow files need the `workflows` permission, which the app lacks, when GitHub refuses such a change", async () => {
    github.rules.push({
      branch: /^magis\//,
      type: "FORBIDDEN",
      message: "refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission",
    });
    const workflow: PublishInput["changes"] = [{ path: ".github/workflows/ci.yml", before: "on: push\n", after: "on: [push]\n", encoding: "utf-8" }];
    const error = await publish(workflow, { protected_paths: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect(error).toMatchObject({ stage: "publish" });
    expect((error as StageError).message).toBe(
      "GitHub refused the commit to 'magis/issue-5': it changes `.github/workflows/ci.yml`, and GitHub lets an app change workflow files only with the `workflows` permission, which MAGIS does not ask for (a workflow's token cannot have it).",
    );
    expect((error as StageError).nextStep).toContain("keep `.github/**` in `protected_paths` (the default)");
    expect(git.git(FULL, "for-each-ref", "--format=%(refname)", "refs/heads/magis/")).toBe("");
    expect(github.pulls).toEqual([]);
  });

  it("publishes a 70,000-character report: the description within GitHub's limit, the rest in comments it links to, in order", async () => {
    const diff = Array.from({ length: 5_000 }, (_, i) => `+line ${i} ünïcödé`).join("\n");
    const report = `## MAGIS: Typo in README\n\nFixes #5\n\n### Plan\n\n1. \`README.md\`\n\n<details>\n<summary>QA reviews</summary>\n\n\`\`\`diff\n${diff}\n\`\`\`\n\n</details>\n`;
    expect(report.length).toBeGreaterThan(70_000);
    const published = await publish(fix, {}, report);
    const pull = github.pulls[0]!;
    // The plan stays in the description; the reviews, longer than a comment, follow in two.
    const parts = github.comments.filter((c) => c.issue === published.number);
    expect(parts).toHaveLength(2);
    expect(pull.body.length).toBeLessThanOrEqual(65_536);
    const links = parts.map((c, i) => `[part ${i + 2}](https://github.com/octo/demo/issues/${published.number}#issuecomment-${c.id})`);
    expect(pull.body).toBe(
      `## MAGIS: Typo in README\n\nFixes #5\n\n### Plan\n\n1. \`README.md\`\n\n---\n\n*The rest of this report is in 2 comments: ${links.join(", ")}.*\n`,
    );
    for (const [i, part] of parts.entries()) {
      expect(part.body.length).toBeLessThanOrEqual(65_536);
      expect(
        part.body.startsWith(
          `<!-- magis:report-part ${i + 2} -->\n**MAGIS report, part ${i + 2} of 3** (continued from the [description](${pull.html_url}))\n\n`,
        ),
      ).toBe(true);
    }
    expect(parts[0]!.body).toContain("\n\n<details>\n<summary>QA reviews</summary>\n\n```diff\n+line 0 ünïcödé\n");
    expect(parts[0]!.body.endsWith("\n```\n\n</details>")).toBe(true);
    expect(parts[1]!.body).toContain("\n\n<details>\n<summary>QA reviews (continued)</summary>\n\n```diff\n");
    expect(parts[1]!.body.endsWith("+line 4999 ünïcödé\n```\n\n</details>\n")).toBe(true);
    // Every line of the diff once, in order, across the two comments.
    const lines = parts.flatMap((c) => c.body.split("\n").filter((l) => l.startsWith("+line ")));
    expect(lines).toEqual(diff.split("\n"));
    // Asked for in order: the pull request (with the commit), its comments, then the description with their links.
    const writes = github.requests.filter((r) => r.method !== "GET" && /\/(pulls|issues|graphql)/.test(r.path)).map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual([
      "POST /graphql",
      "POST /repos/octo/demo/issues/100/comments",
      "POST /repos/octo/demo/issues/100/comments",
      "PATCH /repos/octo/demo/pulls/100",
    ]);
  });

  it("on a retry, rewrites its earlier report's comments in place and marks those the new report does not need", async () => {
    const long = (lines: number) => `## Report\n\n\`\`\`\n${Array.from({ length: lines }, (_, i) => `line ${i}`).join("\n")}\n\`\`\``;
    await publish(fix, {}, long(20_000));
    const first = github.comments.map((c) => c.id);
    expect(first.length).toBeGreaterThan(1);
    await publish([{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }], {}, long(9_000));
    expect(github.comments.map((c) => c.id)).toEqual(first);
    const unused = /^<!-- magis:report-part \d+ -->\n\*This part of an earlier MAGIS report is no longer used/;
    const used = github.comments.filter((c) => !unused.test(c.body));
    expect(used.length).toBeGreaterThan(0);
    expect(used.length).toBeLessThan(first.length);
    expect(github.comments.slice(0, used.length)).toEqual(used);
    used.forEach((c, i) =>
      expect(c.body).toMatch(new RegExp(`^<!-- magis:report-part ${i + 2} -->\\n\\*\\*MAGIS report, part ${i + 2} of ${used.length + 1}\\*\\*`)),
    );
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]!.body).toContain(`[part 2](https://github.com/octo/demo/issues/100#issuecomment-${first[0]})`);
  });

  it("still publishes when the report's comments cannot be posted, and says so to onError", async () => {
    github = startFake({ faults: [{ method: "POST", path: /\/issues\/100\/comments$/, status: 502, times: 1 }] });
    const errors: unknown[] = [];
    const published = await publish(fix, {}, `## Report\n\n${"word ".repeat(14_000)}`, "Typo in README", true, (error) => errors.push(error));
    expect(published).toMatchObject({ number: 100, updated: false });
    expect(errors).toMatchObject([{ status: 502 }]);
    expect(github.pulls[0]!.body).toBe("Fixes #5\n\n---\n\n*The rest of this report is in 2 comments below.*\n");
  });

  it("is refused by the fake as by GitHub when a body passes 65,536 characters", async () => {
    const refused = await octokit.rest.issues
      .createComment({ owner: "octo", repo: "demo", issue_number: 5, body: "x".repeat(65_537) })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [{ resource: "IssueComment", code: "custom", field: "body", message: "body is too long (maximum is 65536 characters)" }],
        },
      },
    });
    await octokit.rest.issues.createComment({ owner: "octo", repo: "demo", issue_number: 5, body: "x".repeat(65_536) });
    // The refused request is one GitHub would refuse: the strict fake counts it against the test unless it is taken here.
    expect(takeViolations()).toEqual(["POST /repos/octo/demo/issues/5/comments: body is longer than GitHub takes"]);
  });
});

describe.each(["app", "web-flow"] as const)("the bot's own branch, with GitHub recording %s as the committer of its commits", (committer) => {
  const retry: PublishInput["changes"] = [{ path: "README.md", before: "Helo\n", after: "Hello!\n", encoding: "utf-8" }];

  beforeEach(() => {
    github = startFake({ apiCommitter: committer });
  });

  it("is replaced on a retry: its commits are signed, by the app, with the branch's trailer", async () => {
    // The first commit is createCommitOnBranch's (GitHub commits it); the retry replaces the branch through the Git Data API.
    const first = await publish(fix);
    expect(git.git(FULL, "log", "-1", "--format=%ae / %ce", "magis/issue-5")).toBe(`${github.botEmail} / noreply@github.com`);
    expect(git.git(FULL, "log", "-1", "--format=%B", "magis/issue-5")).toBe(
      "Typo in README (#5)\n\nChanged by MAGIS: README.md.\n\nFixes #5\n\nMAGIS-Branch: magis/issue-5",
    );
    const second = await publish(retry);
    expect(second).toMatchObject({ branch: "magis/issue-5", number: first.number, updated: true });
    expect(git.git(FULL, "rev-list", "--count", "main..magis/issue-5")).toBe("1");
    const recorded = git.git(FULL, "log", "-1", "--format=%ae / %ce", "magis/issue-5");
    expect(recorded).toBe(`${github.botEmail} / ${committer === "app" ? github.botEmail : "noreply@github.com"}`);
    // A third run replaces the Git Data API's commit as well: the bot trusts its own commits from either route.
    expect(await publish(fix)).toMatchObject({ branch: "magis/issue-5", updated: true });
  });

  it("is left alone once a person pushed to it: a new branch name is chosen", async () => {
    await publish(fix);
    humanCommit("magis/issue-5");
    const humanHead = git.git(FULL, "rev-parse", "magis/issue-5");
    expect(await publish(retry)).toMatchObject({ branch: "magis/issue-5-2", updated: false });
    expect(git.git(FULL, "rev-parse", "magis/issue-5")).toBe(humanHead);
  });

  it("is not trusted on a commit that merely claims the bot's address: unsigned and without the trailer", async () => {
    await publish(fix);
    humanCommit("magis/issue-5", { email: github.botEmail, message: "Looks like the bot" });
    const forged = git.git(FULL, "rev-parse", "magis/issue-5");
    expect(await publish(retry)).toMatchObject({ branch: "magis/issue-5-2", updated: false });
    expect(git.git(FULL, "rev-parse", "magis/issue-5")).toBe(forged);
  });

  it("is trusted on an unsigned commit by the bot that carries the branch's trailer (a server that signs nothing)", async () => {
    await publish(fix);
    humanCommit("magis/issue-5", { email: github.botEmail, message: "Fix CI of #100\n\nMAGIS-CI-Fix: 1\nMAGIS-Branch: magis/issue-5" });
    expect(await publish(retry)).toMatchObject({ branch: "magis/issue-5", updated: true });
    expect(git.git(FULL, "rev-list", "--count", "main..magis/issue-5")).toBe("1");
  });
});
