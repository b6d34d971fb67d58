import nock from "nock";
import { describe, expect, it } from "vitest";
import { addCommit } from "../support/git-server.js";
import type { FakeCheckRun } from "../support/github-api.js";
import { FULL, INSTALLATION, TOKEN, useRig } from "./e2e-rig.js";
import { ciPayload } from "./payloads.js";
import { BOT_AUTHOR, LINE_4, LINE_4_REVISED, README_FIXED, REVISE_LINE_4, scriptRevisions, seedBotPullRequest } from "./script-revise.js";

const rig = useRig();
const BRANCH = "magis/issue-1";
const LOGS = "https://pipelines.example.test";
const git = (...args: string[]) => rig.git.git(FULL, ...args);
const deliver = (sha: string, delivery: string, options: { conclusion?: string; event?: "check_suite" | "workflow_run" } = {}) =>
  rig.app.deliver(
    options.event ?? "check_suite",
    ciPayload(options.event ?? "check_suite", { sha, branch: BRANCH, pull: 2, conclusion: options.conclusion ?? "failure", installationId: INSTALLATION }),
    delivery,
  );

/** The docs check of the repository's CI failing on `sha`: an annotation on README.md line 4 and a log that says why. */
function failingDocsCheck(sha: string, id = 7001): FakeCheckRun {
  return {
    id,
    headSha: sha,
    name: "docs",
    conclusion: "failure",
    title: "1 problem in README.md",
    summary: "The docs linter found a sentence that says too little.",
    annotations: [{ path: "README.md", start_line: 4, annotation_level: "failure", message: "Say where to push: end the sentence with 'to GitHub'." }],
    logUrl: `${LOGS}/jobs/${id}/log?sig=signed`,
  };
}

/** The download host of Actions logs, answering the log's last bytes; returns the request headers it saw. */
function serveLog(id: number, log: string): { headers: Record<string, string>[] } {
  const seen: { headers: Record<string, string>[] } = { headers: [] };
  nock(LOGS)
    .get(`/jobs/${id}/log`)
    .query(true)
    .reply(function () {
      seen.headers.push(this.req.headers as Record<string, string>);
      return [200, log];
    });
  return seen;
}

describe("CI fails on the bot's pull request: the bot reads the failure and pushes a fix", () => {
  it("fixes a failing check in one attempt: one commit numbered in its message, a comment saying what failed and what was pushed", async () => {
    const seeded = seedBotPullRequest(rig.root);
    const log = serveLog(
      7001,
      "2026-11-23T10:00:00.0000000Z Run docs-lint README.md\n2026-11-23T10:00:01.0000000Z \u001b[31mREADME.md:4: say where to push\u001b[0m\n2026-11-23T10:00:01.5000000Z ##[error]Process completed with exit code 1.\n",
    );
    await rig.setUp({ pulls: seeded.pulls, checkRuns: [failingDocsCheck(seeded.head)], script: (model) => scriptRevisions(model, REVISE_LINE_4) });

    expect(await deliver(seeded.head, "d-ci-1")).toBe(200);
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    const [job] = await rig.jobs();
    expect(job, job?.detail ?? "").toMatchObject({ kind: "revise-pull-request", number: 2, status: "succeeded" });
    expect(job!.delivery).toMatch(new RegExp(`^ci-fix:${FULL}@${seeded.head} suite \\d+ at `));

    // One commit on top of the failing head, by the app, numbered as fix 1.
    const head = git("rev-parse", BRANCH);
    expect(git("rev-parse", `${head}^`)).toBe(seeded.head);
    expect(git("log", "-1", "--format=%an <%ae>", BRANCH)).toBe(`${BOT_AUTHOR.name} <${BOT_AUTHOR.email}>`);
    expect(git("log", "-1", "--format=%B", BRANCH)).toMatch(
      /^Fix CI of #2 \(attempt 1 of 2\)\n\nCI failed on docs\. Changed by MAGIS: README\.md\.\n\nMAGIS-CI-Fix: 1\nMAGIS-Branch: magis\/issue-1\n?$/,
    );
    expect(git("show", `${BRANCH}:README.md`)).toContain(LINE_4_REVISED);

    // The Manager read the failure: the check, its annotation and the log's end, cleaned (no timestamps, no colours).
    const triage = rig.model.requests
      .find((r) => r.prompt === "manager-triage-feedback")!
      .messages.map((m) => m.content)
      .join("\n");
    expect(triage).toContain("The repository's CI failed on the latest commit of this pull request (attempt 1 of 2 to fix it).");
    expect(triage).toContain("### Check `docs`: failure — 1 problem in README.md");
    expect(triage).toContain("- `README.md` line 4 (failure): Say where to push: end the sentence with 'to GitHub'.");
    expect(triage).toContain("  README.md:4: say where to push\n  ##[error]Process completed with exit code 1.");
    expect(triage).not.toContain("2026-11-23T10:00");
    // The log was asked for by its last bytes, and without the token (the download host is not GitHub).
    expect(log.headers).toHaveLength(1);
    expect(log.headers[0]!.range).toBe("bytes=-65536");
    expect(JSON.stringify(log.headers)).not.toContain(TOKEN);

    const status = rig.github.comments.find((c) => c.issue === 2 && c.body.includes("<!-- magis:status job="))!.body;
    expect(status).toContain("### 🔧 MAGIS pushed a fix for the failing CI");
    expect(status).toContain(`CI failed on \`docs\`; pushed ${head.slice(0, 7)} (attempt 1 of 2).`);
    expect(rig.github.pulls[0]!.body).toContain(`(run #${job!.id}, asked by failing CI (fix 1 of 2)): ${head.slice(0, 7)} changes \`README.md\``);
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });

  it("after the last attempt, one comment says what still fails, and nothing more is pushed, however often CI reports it", async () => {
    const seeded = seedBotPullRequest(rig.root);
    const second = addCommit(rig.root, FULL, {
      branch: BRANCH,
      files: { "README.md": README_FIXED.replace(LINE_4, `${LINE_4} Really.`) },
      message: "Fix CI of #2 (attempt 2 of 2)\n\nMAGIS-CI-Fix: 2",
      author: BOT_AUTHOR,
    });
    serveLog(7002, "Error: README.md:4 still says too little\n");
    await rig.setUp({ pulls: seeded.pulls, checkRuns: [failingDocsCheck(second, 7002)] });
    await deliver(second, "d-ci-last");
    await deliver(second, "d-ci-last-again", { event: "workflow_run" });
    await rig.app.services.settled();

    expect(await rig.jobs()).toEqual([]);
    expect(git("rev-parse", BRANCH)).toBe(second);
    const notes = rig.github.comments.filter((c) => c.issue === 2 && c.body.includes("<!-- magis:ci-gave-up"));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body).toContain("### ❌ CI still fails after 2 attempts by MAGIS");
    expect(notes[0]!.body).toContain(`Failing on ${second.slice(0, 7)}: \`docs\`.`);
    expect((await rig.app.services.triggers.all()).map((t) => [t.delivery, t.outcome])).toEqual([
      ["d-ci-last", "declined"],
      ["d-ci-last-again", "ignored"],
    ]);
  });

  it("does nothing when a person pushed the head commit, on a success, on a pull request of someone else's, or when the branch moved", async () => {
    const seeded = seedBotPullRequest(rig.root);
    const human = addCommit(rig.root, FULL, {
      branch: BRANCH,
      files: { "README.md": `${README_FIXED}\nMore.\n` },
      message: "My own touch",
      author: { name: "Codertocat", email: "codertocat@example.com" },
    });
    // Someone else's pull request, from a branch of their own at their commit.
    git("branch", "magis/issue-9", human);
    await rig.setUp({
      pulls: [...seeded.pulls, { number: 3, head: "magis/issue-9", title: "Someone's", body: "", user: "Codertocat" }],
      checkRuns: [failingDocsCheck(human)],
    });
    await deliver(human, "d-human");
    await deliver(human, "d-green", { conclusion: "success" });
    await deliver(seeded.head, "d-outdated");
    await rig.app.deliver(
      "check_suite",
      ciPayload("check_suite", { sha: human, branch: "magis/issue-9", pull: 3, conclusion: "failure", installationId: INSTALLATION }),
      "d-other-pr",
    );
    await rig.app.services.settled();

    expect(await rig.jobs()).toEqual([]);
    const decisions = Object.fromEntries((await rig.app.services.triggers.all()).map((t) => [t.delivery, t.detail]));
    expect(decisions["d-human"]).toBe(`the head commit ${human.slice(0, 7)} is @codertocat's, not the app's: a person's push is theirs to fix`);
    // A success is not even recorded: CI finishes on every push, and only failures can be triggers.
    expect(decisions["d-green"]).toBeUndefined();
    expect(decisions["d-outdated"]).toBe(
      `CI ran on ${seeded.head.slice(0, 7)}, but the branch has moved to ${human.slice(0, 7)}; only its latest commit's CI counts`,
    );
    expect(decisions["d-other-pr"]).toBe("pull request #3 was not opened by the app");
    expect(git("rev-parse", BRANCH)).toBe(human);
    expect(rig.github.comments.filter((c) => c.issue === 2)).toEqual([]);
  });

  it("a redelivery or a duplicate of one CI run makes one job; a second CI app's failure of the same commit pushes nothing more", async () => {
    const seeded = seedBotPullRequest(rig.root);
    serveLog(7001, "README.md:4: say where to push\n");
    await rig.setUp({ pulls: seeded.pulls, checkRuns: [failingDocsCheck(seeded.head)], script: (model) => scriptRevisions(model, REVISE_LINE_4) });
    const suite = ciPayload("check_suite", { sha: seeded.head, branch: BRANCH, pull: 2, conclusion: "failure", installationId: INSTALLATION });
    await rig.app.deliver("check_suite", suite, "d-once");
    await rig.app.deliver("check_suite", suite, "d-once");
    await rig.app.deliver("check_suite", suite, "d-duplicate");
    await deliver(seeded.head, "d-other-app", { event: "workflow_run" });
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-duplicate")).toMatchObject({
      outcome: "ignored",
      detail: "a fix for this commit's CI failure was queued before",
    });
    // The other app's job waited behind the fix, found the branch moved on, and pushed nothing.
    const [fix, other] = (await rig.jobs()).sort((a, b) => a.id - b.id);
    expect(fix).toMatchObject({ status: "succeeded" });
    expect(other).toMatchObject({ status: "succeeded", detail: "https://github.com/Codertocat/Hello-World/pull/2: no change" });
    expect(git("rev-list", "--count", `${seeded.head}..${BRANCH}`)).toBe("1");
  });

  it("a re-run that fails for a real reason after a failure that looked unrelated gets its fix", async () => {
    const seeded = seedBotPullRequest(rig.root);
    const check = { ...failingDocsCheck(seeded.head), annotations: [], title: "install failed", summary: "" };
    nock(LOGS).get("/jobs/7001/log").query(true).reply(200, "npm ERR! code ECONNRESET\nnpm ERR! network aborted\n");
    await rig.setUp({ pulls: seeded.pulls, checkRuns: [check], script: (model) => scriptRevisions(model, REVISE_LINE_4) });
    const first = ciPayload("check_suite", { sha: seeded.head, branch: BRANCH, pull: 2, conclusion: "failure", installationId: INSTALLATION });
    await rig.app.deliver("check_suite", first, "d-flaky-first");
    await rig.app.services.settled();
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
    // The maintainer re-runs the jobs, as the comment says; this time the docs check fails on the code.
    Object.assign(check, failingDocsCheck(seeded.head));
    serveLog(7001, "README.md:4: say where to push\n");
    const rerun = structuredClone(first);
    rerun.check_suite.updated_at = new Date(Date.parse(first.check_suite.updated_at) + 60_000).toISOString();
    await rig.app.deliver("check_suite", rerun, "d-rerun");
    await rig.app.services.settled();
    expect(git("rev-list", "--count", `${seeded.head}..${BRANCH}`)).toBe("1");
    expect(git("log", "-1", "--format=%s", BRANCH)).toBe("Fix CI of #2 (attempt 1 of 2)");
  });

  it("spends no attempt when every failure looks like the CI's own trouble, and says so", async () => {
    const seeded = seedBotPullRequest(rig.root);
    serveLog(7001, "npm ERR! code ECONNRESET\nnpm ERR! network aborted\n");
    await rig.setUp({ pulls: seeded.pulls, checkRuns: [{ ...failingDocsCheck(seeded.head), annotations: [], title: "install failed", summary: "" }] });
    await deliver(seeded.head, "d-flaky");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    expect(rig.model.requests).toEqual([]);
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
    const status = rig.github.comments.find((c) => c.issue === 2 && c.body.includes("<!-- magis:status job="))!.body;
    expect(status).toContain("### MAGIS pushed no fix for the failing CI");
    expect(status).toContain(
      `every failure on ${seeded.head.slice(0, 7)} looks unrelated to the change (\`docs\` (a download failed while installing)); re-run the failed jobs, no attempt was spent`,
    );
  });
});
