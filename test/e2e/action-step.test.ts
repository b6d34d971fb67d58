import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTION_NODE, ACTION_NODE_HAS_SQLITE, buildActionCopy, inputVariables, readActionYml, REPOSITORY_PACKAGES } from "../support/action-copy.js";
import { createBareRepository, startGitServer, type GitServer } from "../support/git-server.js";
import { serveFakeGitHub, type FakeGitHubOptions } from "../support/github-api.js";
import { assertWebhookPayload } from "../support/github-spec/webhook-spec.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.js";
import { ciPayload, commentPayload, labeledPayload, pullCommentPayload, reviewComment, reviewPayload } from "./payloads.js";
import { MARKS, REPO_FILES, scriptBrokenModel, scriptResolve } from "./script-resolve.js";
import { LINE_4, LINE_4_REVISED, README_FIXED, README_HUNK, REVISE_LINE_4, scriptRevisions, seedBotPullRequest, type BotAccount } from "./script-revise.js";

const TOKEN = "ghs_actionWorkflowToken0123456789abcdef";
const OWNER = "Codertocat";
const REPO = "Hello-World";
// The workflow's own token: its pull requests and commits are github-actions[bot]'s.
const ACTIONS_BOT: BotAccount = { login: "github-actions[bot]", userId: 41898282 };

/** Fills a `${{ … }}` expression of an input's default as the runner would for this test's workflow. */
function expand(text: string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    if (expression === "github.token") return TOKEN;
    throw new Error(`the test does not know the expression ${expression}`);
  });
}

// The action as a runner runs it: `node <runs.main>` of the bundle, built from the sources into a folder of its own
// with action.yml and nothing else, its inputs as INPUT_* variables, on ACTION_NODE (this Node, or the runner's Node
// 24 through MAGIS_ACTION_NODE). A Node without node:sqlite (20) gets the repository's better-sqlite3 through
// NODE_PATH, as if installed beside the bundle; Node 22.13 and later run the bundle alone, as the runner's node24 does.
describe("magis action, run as the Actions runner runs the node24 action: its bundle, its inputs", () => {
  let action: string;
  let root: string;
  let git: GitServer;
  let model: ScriptedModel;
  let github: Awaited<ReturnType<typeof serveFakeGitHub>>;

  beforeAll(async () => {
    action = fs.mkdtempSync(path.join(os.tmpdir(), "magis-action-copy-"));
    await buildActionCopy(action);
  }, 120_000);

  afterAll(() => fs.rmSync(action, { recursive: true, force: true }));

  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-action-"));
    createBareRepository(root, `${OWNER}/${REPO}`, REPO_FILES);
    git = await startGitServer(root, { token: TOKEN });
    model = await startScriptedModel();
  });

  afterEach(async () => {
    await github?.close();
    await model?.close();
    await git?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function startGitHub(extra: Partial<FakeGitHubOptions> = {}) {
    github = await serveFakeGitHub({
      owner: OWNER,
      repo: REPO,
      installationId: 0,
      token: TOKEN,
      gitRoot: root,
      cloneUrl: `${git.url}/${OWNER}/${REPO}.git`,
      permissions: { Codertocat: "write" },
      bot: { slug: "github-actions", userId: ACTIONS_BOT.userId },
      issue: { number: 1, title: "Spelling error in the README file", body: "It looks like you accidently spelled 'commit' with two 't's." },
      ...extra,
    });
  }

  async function runAction(eventName: string, payload: object) {
    const yml = readActionYml();
    const eventPath = path.join(root, "event.json");
    const summaryPath = path.join(root, "summary.md");
    // The runner writes the webhook payload that triggered the workflow: it must be one GitHub sends.
    assertWebhookPayload(eventName, payload);
    fs.writeFileSync(eventPath, JSON.stringify(payload));
    const given: Record<string, string> = {
      openai_api_key: "sk-action-test-key-0123456789",
      openai_base_url: model.url,
      model: "scripted",
    };
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_API_URL: github.url,
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_RUN_ID: "4242",
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_STEP_SUMMARY: summaryPath,
      RUNNER_TEMP: root,
      MAGIS_LLM_MAX_RETRIES: "0",
      ...inputVariables(yml, given, expand),
      ...(ACTION_NODE_HAS_SQLITE ? {} : { NODE_PATH: REPOSITORY_PACKAGES }),
    };
    const result = await runInProcessGroup(ACTION_NODE, [path.join(action, yml.runs.main!)], { cwd: root, env, timeoutMs: 90_000 });
    const summary = fs.existsSync(summaryPath) ? fs.readFileSync(summaryPath, "utf8") : "";
    // The run's scratch folder (its database) is gone: what is left in RUNNER_TEMP is the test's own.
    expect(fs.readdirSync(root).filter((name) => name.startsWith("magis-action-"))).toEqual([]);
    return { ...result, summary };
  }

  /** Checks a run went as scripted (exit 0, every GitHub request routed, every model call scripted) and returns it. */
  function expectCleanRun<T extends { code: number | null; out: string }>(run: T): T {
    expect(run.code, run.out).toBe(0);
    expect(github.unmatched).toEqual([]);
    expect(model.problems).toEqual([]);
    return run;
  }

  /** The real git in the bare repository the step pushed to; its trimmed output. */
  const bare = (...args: string[]) => git.git(`${OWNER}/${REPO}`, ...args);
  const branches = () => bare("for-each-ref", "--format=%(refname:short)", "refs/heads/magis/");
  const statusComment = () => github.comments.find((c) => c.body.includes("<!-- magis:status job="));

  it("a label: runs the whole job inside the step, commits through the API, opens the PR, and sums up", async () => {
    scriptResolve(model);
    await startGitHub();
    const { summary, out } = expectCleanRun(await runAction("issues", labeledPayload({ installationId: null })));
    expect(branches()).toBe("magis/issue-1");
    // The commit was made by one GraphQL createCommitOnBranch with the workflow's token, never pushed: GitHub signs it as github-actions[bot].
    expect(git.requests.filter((r) => r.path.endsWith("git-receive-pack"))).toEqual([]);
    expect(github.find("POST", /\/git\/(blobs|trees|commits)$|^\/graphql$/).map((r) => r.path)).toEqual(["/graphql"]);
    const author = execFileSync("git", ["log", "-1", "--format=%an <%ae> / %cn", "magis/issue-1"], {
      cwd: path.join(root, `${OWNER}/${REPO}.git`),
      encoding: "utf8",
    }).trim();
    expect(author).toBe("github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com> / GitHub");
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]!.body).toContain("Fixes #1");
    expect(statusComment()!.body).toContain("Pull request opened: #100");
    expect(summary).toContain("### 🚀 MAGIS finished");
    expect(summary).toContain("https://github.com/Codertocat/Hello-World/pull/100");
    expect(out + summary).not.toContain(TOKEN);
  });

  it("a review of the bot's pull request: one commit on its branch, a reply in the thread, the summary", async () => {
    const seeded = seedBotPullRequest(root, { bot: ACTIONS_BOT });
    scriptRevisions(model, REVISE_LINE_4);
    await startGitHub({
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 701, reviewId: 92, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
    });
    const payload = reviewPayload({ installationId: null, reviewId: 92, state: "changes_requested", author: { login: ACTIONS_BOT.login, type: "Bot" } });
    const { summary } = expectCleanRun(await runAction("pull_request_review", payload));
    expect(bare("log", "--format=%P %an %s", "-1", "magis/issue-1").startsWith(`${seeded.head} github-actions[bot] Revise #2`)).toBe(true);
    expect(git.requests.filter((r) => r.path.endsWith("git-receive-pack"))).toEqual([]);
    expect(github.replies.map((r) => r.inReplyTo)).toEqual([701]);
    expect(summary).toContain("### 🚀 MAGIS finished");
    expect(summary).toContain("revised in");
  });

  it("a sibling workflow failing on the bot's pull request (workflow_run): reads the failure and pushes one numbered fix", async () => {
    const seeded = seedBotPullRequest(root, { bot: ACTIONS_BOT });
    scriptRevisions(model, REVISE_LINE_4);
    const checkRuns: NonNullable<FakeGitHubOptions["checkRuns"]> = [];
    await startGitHub({ pulls: seeded.pulls, checkRuns });
    checkRuns.push({
      id: 8101,
      headSha: seeded.head,
      name: "docs",
      conclusion: "failure",
      title: "1 problem in README.md",
      annotations: [{ path: "README.md", start_line: 4, annotation_level: "failure", message: "Say where to push." }],
      logUrl: `${github.url}/_logs/8101?sig=signed`,
      log: "README.md:4: say where to push\n",
    });
    const payload = ciPayload("workflow_run", { sha: seeded.head, branch: "magis/issue-1", pull: 2, conclusion: "failure", installationId: null });
    const { summary } = expectCleanRun(await runAction("workflow_run", payload));
    expect(bare("log", "--format=%P %an %s", "-1", "magis/issue-1")).toBe(`${seeded.head} github-actions[bot] Fix CI of #2 (attempt 1 of 2)`);
    expect(bare("show", "magis/issue-1:README.md")).toContain(LINE_4_REVISED);
    expect(github.find("GET", /^\/_logs\/8101/)).toHaveLength(1);
    const status = github.comments.find((c) => c.issue === 2 && c.body.includes("<!-- magis:status job="))!.body;
    expect(status).toContain("CI failed on `docs`; pushed");
    expect(summary).toContain("revised in");
  });

  it("/magis retry with guidance from a maintainer: runs again, replaces the bot's branch, updates its pull request, sums up", async () => {
    // The bot's earlier attempt reworded the first sentence as well; the maintainer asks for the typo alone.
    const earlier = seedBotPullRequest(root, { bot: ACTIONS_BOT, files: { "README.md": README_FIXED.replace("repository", "repo") } });
    scriptResolve(model);
    await startGitHub({ pulls: earlier.pulls });
    const guidance = "keep the wording, fix only the typo";
    const command = commentPayload({ body: `/magis retry ${guidance}`, installationId: null });
    const { summary, out } = expectCleanRun(await runAction("issue_comment", command));

    // One new commit on main replaces the earlier attempt: the branch holds exactly the approved change.
    expect(branches()).toBe("magis/issue-1");
    expect(bare("rev-list", "main..magis/issue-1").split("\n")).toHaveLength(1);
    expect(bare("rev-parse", "magis/issue-1^")).toBe(bare("rev-parse", "main"));
    expect(bare("diff", "--name-only", "main", "magis/issue-1")).toBe("README.md");
    expect(bare("show", "magis/issue-1:README.md")).toBe(README_FIXED.trimEnd());
    // The same pull request, updated with the new run's report in the request that moved its branch.
    expect(github.find("POST", /\/pulls$/)).toEqual([]);
    expect(github.find("PATCH", /\/pulls\/2$/)).toEqual([]);
    expect(github.find("POST", /^\/graphql$/).at(-1)!.body).toMatchObject({ variables: { pull: { pullRequestId: "PR_fake2" } } });
    expect(github.pulls[0]!.body).toContain("Fixes #1");
    expect(github.pulls[0]!.body).toContain(MARKS.kickoff);
    // The guidance reached the agents as a hint (the Manager defines the first file's task with the way).
    const define = model.requests.find((r) => r.prompt === "manager-define-task-and-way")!;
    expect(define.messages.map((m) => m.content).join("\n")).toContain(guidance);

    const status = statusComment()!;
    expect(status.history.length).toBeGreaterThan(1);
    expect(status.body).toContain("### 🚀 MAGIS opened a pull request");
    expect(status.body).toContain("- [x] Pull request updated: #2 (https://github.com/Codertocat/Hello-World/pull/2)");
    expect(status.body).toContain("@Codertocat commented `/magis retry` with guidance");
    expect(github.reactions).toEqual([
      { target: `issues/comments/${command.comment.id}`, content: "eyes" },
      { target: `issues/comments/${command.comment.id}`, content: "rocket" },
    ]);
    expect(summary).toContain("### 🚀 MAGIS finished");
    expect(summary).toContain("- Job #1 (resolve-issue) on #1: succeeded\n");
    expect(summary).toContain("https://github.com/Codertocat/Hello-World/pull/2");
    expect(out + summary + JSON.stringify(github.requests)).not.toContain(TOKEN);
  });

  it("/magis revise with what to change, on the bot's pull request by a maintainer: one commit on its head, the answer, the summary", async () => {
    const seeded = seedBotPullRequest(root, { bot: ACTIONS_BOT });
    scriptRevisions(model, REVISE_LINE_4);
    await startGitHub({ pulls: seeded.pulls });
    const guidance = "End the sentence on line 4 with 'to GitHub'.";
    const command = pullCommentPayload({ body: `/magis revise ${guidance}`, installationId: null });
    const { summary, out } = expectCleanRun(await runAction("issue_comment", command));

    const head = bare("rev-parse", "magis/issue-1");
    expect(bare("rev-list", `${seeded.head}..${head}`)).toBe(head);
    expect(bare("rev-parse", `${head}^`)).toBe(seeded.head);
    expect(bare("diff", seeded.head, head)).toContain(`-${LINE_4}\n+${LINE_4_REVISED}`);
    const triage = model.requests.find((r) => r.prompt === "manager-triage-feedback")!;
    expect(triage.messages.map((m) => m.content).join("\n")).toContain(guidance);

    // The answer is one comment on the pull request; the command comment gets 👀 then 🚀.
    const answers = github.comments.filter((c) => c.issue === 2);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.body).toContain("🚀 MAGIS revised this pull request");
    expect(answers[0]!.body).toContain("@Codertocat commented `/magis revise` with guidance");
    expect(github.reactions).toEqual([
      { target: `issues/comments/${command.comment.id}`, content: "eyes" },
      { target: `issues/comments/${command.comment.id}`, content: "rocket" },
    ]);
    expect(github.pulls[0]!.body).toMatch(/- \*\*Revision 1\*\* .*changes `README\.md`/);
    expect(summary).toContain("### 🚀 MAGIS finished");
    expect(summary).toContain("- Job #1 (revise-pull-request) on #2: succeeded\n");
    expect(summary).toContain(`https://github.com/Codertocat/Hello-World/pull/2 revised in ${head}`);
    expect(out + summary + JSON.stringify(github.requests)).not.toContain(TOKEN);
  });

  it("a job whose model server answers errors: exit 1, and the summary and the status comment say where, why and what to do", async () => {
    model.script("custodian-summarize-file", scriptBrokenModel());
    await startGitHub();
    const { code, out, summary } = await runAction("issues", labeledPayload({ installationId: null }));
    expect(code, out).toBe(1);
    expect(github.unmatched).toEqual([]);

    expect(summary).toContain("### 😕 MAGIS failed");
    expect(summary).toContain("- Job #1 (resolve-issue) on #1: failed in stage `locate`\n");
    expect(summary).toContain("custodian-summarize-file");
    expect(summary).toContain("500");
    expect(summary).toContain("/magis retry");
    const status = statusComment()!;
    expect(status.body).toContain("😕 MAGIS could not finish this run");
    expect(status.body).toContain("**Failed at:** locate");
    expect(status.body).toMatch(/\*\*Why:\*\* .*500/);
    expect(status.body).toMatch(/\*\*Next step:\*\* .*Then comment `\/magis retry`\./);
    expect(github.reactions.map((r) => [r.target, r.content])).toEqual([
      ["issues/1", "eyes"],
      ["issues/1", "confused"],
    ]);
    expect(branches()).toBe("");
    expect(github.pulls).toEqual([]);
    expect(out + summary + JSON.stringify(github.requests)).not.toContain(TOKEN);
  });

  it("plan_approval in a workflow: refused before any model call, since a /magis go could never reach the run", async () => {
    await startGitHub({ config: "plan_approval: true\n" });
    const { code, out, summary } = await runAction("issues", labeledPayload({ installationId: null }));
    expect(code, out).toBe(1);
    expect(github.unmatched).toEqual([]);
    expect(model.requests).toEqual([]);
    const status = statusComment()!;
    expect(status.body).toMatch(/\*\*Why:\*\* `plan_approval` is set, but the Action's run ends with its job/);
    expect(status.body).toMatch(/\*\*Next step:\*\* Set `plan_approval: false`/);
    expect(summary).toContain("plan_approval");
    expect(branches()).toBe("");
    expect(github.pulls).toEqual([]);
  });

  it("/magis retry from someone without permission: answered, no job, exit 0", async () => {
    await startGitHub();
    const { code, out, summary } = await runAction("issue_comment", commentPayload({ body: "/magis retry", sender: "stranger", installationId: null }));
    expect(code, out).toBe(0);
    expect(github.comments.map((c) => c.body)).toEqual([
      "@stranger only people with write, maintain, admin permission on this repository may run `/magis retry`.",
    ]);
    expect(summary).toContain("### MAGIS: declined");
    expect(branches()).toBe("");
    expect(model.requests).toEqual([]);
  });

  it("an event that is no trigger: nothing to do, exit 0", async () => {
    await startGitHub();
    const quiet = await runAction("issue_comment", commentPayload({ body: "Thanks, looks good", installationId: null }));
    expect(quiet.code, quiet.out).toBe(0);
    expect(quiet.summary).toContain("is not a MAGIS trigger");
    expect(github.requests).toEqual([]);
  });
});
