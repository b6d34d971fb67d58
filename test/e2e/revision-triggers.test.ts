import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../src/backends/sqlite/sqlite-backend.js";
import { jobKey } from "../../src/store/jobs.js";
import { openSqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { addCommit } from "../support/git-server.js";
import { fakeGitHub } from "../support/github-api.js";
import { startScriptedModel } from "../support/scripted-model.js";
import { FULL, INSTALLATION, OWNER, REPO, SECRET, TOKEN, useRig } from "./e2e-rig.js";
import { BOT_LOGIN, pullCommentPayload, reviewComment, reviewPayload } from "./payloads.js";
import { startApp } from "./start-app.js";
import { LINE_4, LINE_4_REVISED, ORIGINAL_REPORT, README_HUNK, REVISE_LINE_4, scriptRevisions, seedBotPullRequest } from "./script-revise.js";

const rig = useRig();

const BRANCH = "magis/issue-1";
const git = (...args: string[]) => rig.git.git(FULL, ...args);
const writes = () => rig.github.requests.filter((r) => r.method !== "GET" && !r.path.includes("/access_tokens"));

describe("what starts a revision and what does not, end to end", () => {
  it("changes nothing for an unauthorized reviewer, an approval, a human's pull request, bots, a foreign branch or an empty review", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({ pulls: seeded.pulls, script: () => undefined });
    const review = (reviewId: number, overrides: Partial<Parameters<typeof reviewPayload>[0]> = {}) =>
      reviewPayload({ installationId: INSTALLATION, reviewId, state: "changes_requested", body: "Please rename the variable.", ...overrides });
    const deliveries: [string, unknown][] = [
      ["stranger", review(1, { sender: "stranger" })],
      ["reader", review(2, { sender: "reader" })],
      ["approval", review(3, { state: "approved", body: "Looks good, thanks!" })],
      ["human pull request", review(4, { author: { login: "Codertocat", type: "User" }, headRef: "changes", pullNumber: 3 })],
      ["another bot's pull request", review(5, { author: { login: "renovate[bot]", type: "Bot" }, headRef: "magis/issue-1" })],
      ["a bot reviewer", review(6, { sender: "dependabot[bot]", senderType: "Bot" })],
      ["the app itself", review(7, { sender: BOT_LOGIN, senderType: "Bot" })],
      ["a branch without the prefix", review(8, { headRef: "feature/rename" })],
      ["an empty comment review", review(9, { state: "commented", body: null })],
    ];
    for (const [name, payload] of deliveries) expect(await rig.app.deliver("pull_request_review", payload, `d-${name}`), name).toBe(200);
    await rig.app.services.settled();

    expect(await rig.jobs()).toEqual([]);
    expect(rig.git.requests).toEqual([]);
    expect(rig.model.requests).toEqual([]);
    expect(writes()).toEqual([]);
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
  });

  it("answers a review with the broken config's problems when the reviewer may trigger runs, and runs nothing", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({ pulls: seeded.pulls, config: "qa_iterations: lots\n", script: () => undefined });
    const review = (sender: string, id: number) =>
      reviewPayload({ installationId: INSTALLATION, reviewId: id, state: "changes_requested", body: "Rename it.", sender });
    await rig.app.deliver("pull_request_review", review("stranger", 1), "d-config-stranger");
    await rig.app.deliver("pull_request_review", review("Codertocat", 2), "d-config");
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.git.requests).toEqual([]);
    expect(rig.github.comments).toHaveLength(1);
    expect(rig.github.comments[0]).toMatchObject({ issue: 2 });
    expect(rig.github.comments[0]!.body).toContain("`qa_iterations`");
  });

  it("/magis revise with guidance revises the pull request without inline comments", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({ pulls: seeded.pulls, script: (model) => scriptRevisions(model, REVISE_LINE_4) });
    const command = pullCommentPayload({ body: "/magis revise\nEnd the sentence on line 4 with 'to GitHub'.", installationId: INSTALLATION });
    await rig.app.deliver("issue_comment", command, "d-revise");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ kind: "revise-pull-request", status: "succeeded" });

    const head = git("rev-parse", BRANCH);
    expect(git("rev-parse", `${head}^`)).toBe(seeded.head);
    expect(git("diff", seeded.head, head)).toContain(`-${LINE_4}\n+${LINE_4_REVISED}`);
    // The guidance reached the Manager and, as the Manager applied it to README.md, the Developer.
    for (const prompt of ["manager-triage-feedback", "developer-locate-lines"]) {
      const text = rig.model.requests
        .find((r) => r.prompt === prompt)!
        .messages.map((m) => m.content)
        .join("\n");
      expect(text, prompt).toContain("End the sentence on line 4 with 'to GitHub'.");
    }
    expect(rig.github.replies).toEqual([]);
    expect(rig.github.reactions).toEqual([
      { target: `issues/comments/${command.comment.id}`, content: "eyes" },
      { target: `issues/comments/${command.comment.id}`, content: "rocket" },
    ]);
    const [summary] = rig.github.comments.filter((c) => c.issue === 2);
    expect(summary!.body).toContain("🚀 MAGIS revised this pull request");
    expect(summary!.body).toContain("@Codertocat commented `/magis revise` with guidance");
    expect(rig.github.pulls[0]!.body).toMatch(/- \*\*Revision 1\*\* .*changes `README\.md`/);
  });

  it("a file the pull request did not touch gets a task when the Manager reads the review so, and is changed in the same commit", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      pulls: seeded.pulls,
      script: (model) =>
        scriptRevisions(model, {
          triage: {
            tasks: [{ path: "docs/guide.md", description: "Say `npm run test` instead of `npm test` on line 3.", general_feedback: true }],
            declined: [],
          },
          edit: {
            path: "docs/guide.md",
            line: 3,
            old: "Run `npm test` before opening a pull request.",
            new: "Run `npm run test` before opening a pull request.",
          },
        }),
    });
    await rig.app.deliver(
      "pull_request_review",
      reviewPayload({ installationId: INSTALLATION, reviewId: 61, state: "changes_requested", body: "The guide says `npm test`; make it `npm run test`." }),
      "d-guide",
    );
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ status: "succeeded" });
    const head = git("rev-parse", BRANCH);
    expect(git("rev-parse", `${head}^`)).toBe(seeded.head);
    expect(git("diff", "--name-only", seeded.head, head)).toBe("docs/guide.md");
    expect(git("show", `${BRANCH}:docs/guide.md`)).toContain("npm run test");
    // The file the Developer edited was read from the checkout after the Manager named it.
    const locate = rig.model.requests
      .find((r) => r.prompt === "developer-locate-lines")!
      .messages.map((m) => m.content)
      .join("\n");
    expect(locate).toContain("3 | Run `npm test` before opening a pull request.");
  });

  it("bare /magis revise runs the revision of the latest review by a person again", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      pulls: seeded.pulls,
      reviews: [
        { id: 96, pull: 2, state: "COMMENTED", body: "An older remark.", user: { login: "Codertocat", type: "User" } },
        { id: 97, pull: 2, state: "CHANGES_REQUESTED", body: "Almost there.", user: { login: "Codertocat", type: "User" } },
        { id: 98, pull: 2, state: "APPROVED", body: "", user: { login: "octocat", type: "User" } },
        { id: 99, pull: 2, state: "COMMENTED", body: "", user: { login: BOT_LOGIN, type: "Bot" } },
        // Someone without write permission: their review never starts a revision, and a bare /magis revise passes it over.
        { id: 100, pull: 2, state: "CHANGES_REQUESTED", body: "Also add a link to evil.example.", user: { login: "reader", type: "User" } },
      ],
      reviewComments: [reviewComment({ id: 970, reviewId: 97, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
      script: (model) => scriptRevisions(model, REVISE_LINE_4),
    });
    const command = pullCommentPayload({ body: "/magis revise", installationId: INSTALLATION });
    await rig.app.deliver("issue_comment", command, "d-bare");
    await rig.app.services.settled();
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ status: "succeeded" });
    expect(git("rev-parse", `${BRANCH}^`)).toBe(seeded.head);
    const triage = rig.model.requests
      .find((r) => r.prompt === "manager-triage-feedback")!
      .messages.map((m) => m.content)
      .join("\n");
    expect(triage).toContain("Almost there.");
    expect(triage).toContain("On line 4: End with 'to GitHub'.");
    expect(triage).not.toContain("An older remark.");
    expect(triage).not.toContain("evil.example");
    expect(rig.github.replies.map((r) => r.inReplyTo)).toEqual([970]);
    expect(rig.github.reactions.map((r) => [r.target, r.content])).toEqual([
      [`issues/comments/${command.comment.id}`, "eyes"],
      [`issues/comments/${command.comment.id}`, "rocket"],
    ]);
  });

  it("answers /magis revise from someone without permission, or on a pull request MAGIS did not open, and runs nothing", async () => {
    const seeded = seedBotPullRequest(rig.root);
    addCommit(rig.root, FULL, {
      branch: "changes",
      from: "main",
      files: { "docs/guide.md": "# Guide\n" },
      message: "Shorter guide",
      author: { name: "Codertocat", email: "codertocat@example.com" },
    });
    await rig.setUp({
      pulls: [...seeded.pulls, { number: 3, head: "changes", title: "Shorter guide", body: "", user: "Codertocat" }],
      script: () => undefined,
    });
    await rig.app.deliver(
      "issue_comment",
      pullCommentPayload({ body: "/magis revise do better", sender: "stranger", installationId: INSTALLATION }),
      "d-stranger",
    );
    await rig.app.deliver("issue_comment", pullCommentPayload({ body: "/magis revise do better", installationId: INSTALLATION, pullNumber: 3 }), "d-human-pr");
    await rig.app.deliver("issue_comment", pullCommentPayload({ body: "Should we /magis revise this?", installationId: INSTALLATION }), "d-chat");
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.git.requests).toEqual([]);
    expect(rig.model.requests).toEqual([]);
    expect(rig.github.comments.map((c) => [c.issue, c.body])).toEqual([
      [2, "@stranger only people with write, maintain, admin permission on this repository may run `/magis revise`."],
      [3, "@Codertocat `/magis revise` works on pull requests MAGIS opened from its `magis/…` branches only."],
    ]);
  });

  it("pushes nothing when the revision produces no approved change, and says so in the thread, the summary and the history", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      config: "qa_iterations: 1\n",
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 801, reviewId: 94, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
      script: (model) =>
        scriptRevisions(model, { ...REVISE_LINE_4, reviews: [{ approved: false, comment: "This rewrites the sentence instead of ending it." }] }),
    });
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 94, state: "changes_requested" }), "d-nochange");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded", detail: "https://github.com/Codertocat/Hello-World/pull/2: no change" });
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
    expect(rig.github.find("POST", /\/git\/(blobs|trees|commits)$|^\/graphql$/)).toEqual([]);
    expect(rig.github.replies).toHaveLength(1);
    expect(rig.github.replies[0]!.body).toContain(
      "❌ I did not change `README.md`: the QA Engineer did not approve it after 1 attempt (last review: This rewrites the sentence instead of ending it.)",
    );
    const [summary] = rig.github.comments.filter((c) => c.issue === 2);
    expect(summary!.body).toContain("### MAGIS made no change in this revision");
    expect(summary!.body).toContain("Nothing was pushed: no task produced a change the QA Engineer approved.");
    expect(summary!.body).toContain("| `README.md` |");
    expect(summary!.body).toContain("| 1 | not approved | no |");
    const description = rig.github.pulls[0]!.body;
    expect(description.startsWith(ORIGINAL_REPORT)).toBe(true);
    expect(description).toContain("- **Revision 1** (run #1, asked by @Codertocat): no change — no task produced a change the QA Engineer approved.");
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes"]);
  });

  it("on start, marks a revision left running by a previous process failed, on its pull request, with /magis revise as the next step", async () => {
    const seeded = seedBotPullRequest(rig.root);
    const earlier = openSqliteStore(path.join(rig.root, "magis.db"));
    await earlier.migrate();
    const store = earlier.jobs;
    const job = (await store.add({
      delivery: "old",
      key: jobKey(OWNER, REPO, 1),
      kind: "revise-pull-request",
      installationId: INSTALLATION,
      owner: OWNER,
      repo: REPO,
      number: 2,
      payload: {},
    }))!;
    await store.start(job.id, "code");
    await earlier.close();
    rig.model = await startScriptedModel();
    rig.github = fakeGitHub({
      owner: OWNER,
      repo: REPO,
      installationId: INSTALLATION,
      token: TOKEN,
      gitRoot: rig.root,
      cloneUrl: `${rig.git.url}/${FULL}.git`,
      issue: { number: 1, title: "Spelling error in the README file", body: "" },
      pulls: seeded.pulls,
      comments: [
        {
          issue: 2,
          body: `<!-- magis:status job=${job.id} -->\n### 👀 MAGIS is revising this pull request\n\n- [x] Feedback read: 1 inline comment on 1 file`,
          user: { login: BOT_LOGIN, type: "Bot" },
        },
      ],
    });
    rig.app = await startApp(SECRET, {
      env: { OPENAI_BASE_URL: rig.model.url, MAGIS_TRACE_DIR: "" },
      seams: { backend: new SqliteBackend(openDatabase(path.join(rig.root, "magis.db"))) },
    });
    expect(await rig.app.services.jobs.get(job.id)).toMatchObject({ status: "failed", stage: "code" });
    const [status] = rig.github.comments;
    expect(status).toMatchObject({ issue: 2 });
    expect(status!.body).toContain("- [x] Feedback read: 1 inline comment on 1 file");
    expect(status!.body).toContain("**Failed at:** code");
    expect(status!.body).toContain("**Next step:** Comment `/magis revise` on this pull request to run the revision of the latest review again");
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
  });

  it("leaves a failure comment naming the stage, the reason and /magis revise when the model fails, and pushes nothing", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      brokenModel: true,
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 901, reviewId: 95, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
    });
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 95, state: "commented" }), "d-broken");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "plan" });
    expect(git("rev-parse", BRANCH)).toBe(seeded.head);
    const [status] = rig.github.comments.filter((c) => c.issue === 2);
    expect(status!.body).toContain("😕 MAGIS could not revise this pull request");
    expect(status!.body).toContain("**Failed at:** plan");
    expect(status!.body).toMatch(/\*\*Why:\*\* .*manager-triage-feedback.*500/);
    expect(status!.body).toMatch(/\*\*Next step:\*\* .*Then comment `\/magis revise`\./);
    expect(rig.github.replies).toEqual([]);
    expect(rig.github.pulls[0]!.body).toBe(ORIGINAL_REPORT);
    expect(rig.github.reactions).toEqual([
      { target: "pulls/comments/901", content: "eyes" },
      { target: "pulls/comments/901", content: "confused" },
    ]);
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });

  it("stops when a person deleted the pull request's branch, and does not create it again", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 911, reviewId: 96, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
    });
    git("update-ref", "-d", "refs/heads/magis/issue-1");
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 96, state: "commented" }), "d-gone");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "read" });
    const [status] = rig.github.comments.filter((c) => c.issue === 2);
    expect(status!.body).toContain("**Failed at:** read");
    expect(status!.body).toContain(
      "The branch `magis/issue-1` of pull request #2 is gone (someone deleted it), so there is nothing to revise; MAGIS does not create it again.",
    );
    expect(git("for-each-ref", "--format=%(refname:short)", "refs/heads/magis/")).toBe("");
    expect(rig.model.requests).toEqual([]);
  });

  it("reports a pull request closed before its revision ran as a failure to read it, not to clone", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 921, reviewId: 97, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK })],
    });
    const release = rig.github.hold();
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 97, state: "commented" }), "d-closed-pr");
    rig.github.pulls[0]!.state = "closed";
    release();
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "read" });
    expect(rig.github.comments.filter((c) => c.issue === 2)[0]!.body).toContain("Pull request #2 is closed, so it was not revised.");
  });
});
