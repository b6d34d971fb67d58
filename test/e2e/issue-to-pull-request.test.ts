import fs from "node:fs";
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
import { commentPayload, labeledPayload } from "./payloads.js";
import { MARKS, scriptResolve } from "./script-resolve.js";
import { startApp } from "./start-app.js";

const rig = useRig();

describe("label → pull request, end to end", () => {
  it("answers the webhook at once, then edits one status comment through the run and opens the PR", async () => {
    await rig.setUp();
    const status = await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-1");
    expect(status).toBe(200);
    // Answered before anything was asked of GitHub: the trigger is recorded with the issue as it was, undecided, and no PR exists yet.
    const atAnswer = await rig.app.services.triggers.all();
    expect(atAnswer).toHaveLength(1);
    expect(atAnswer[0]).toMatchObject({ delivery: "delivery-1", event: "issues.labeled", number: 1, outcome: null });
    expect(rig.github.requests).toEqual([]);
    expect(rig.github.pulls).toHaveLength(0);

    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    const [job] = await rig.jobs();
    expect(job, job?.detail ?? "").toMatchObject({ status: "succeeded", detail: "https://github.com/Codertocat/Hello-World/pull/100" });

    // One status comment, created and then edited in place up to the PR link.
    const statuses = rig.github.comments.filter((c) => c.body.includes("<!-- magis:status job="));
    expect(statuses).toHaveLength(1);
    const history = statuses[0]!.history;
    expect(history[0]).toContain("👀 MAGIS is working on this");
    // The model answers at once, so the run's stages pass within the status's quiet second: one edit shows them all.
    expect(history).toHaveLength(2);
    expect(history.at(-1)).toContain("Pull request opened: #100");
    expect(history.at(-1)).toContain("attempt 1 ↩️ revise, attempt 2 ✅ — **approved**");
    expect(history.at(-1)).toContain("- [x] Kick-off meeting held");
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes", "rocket"]);
    // Publishing is one write, the pull request opened with the commit, and holds the status's edits: GitHub's pacing
    // would put each one a second before it. The one edit after it shows the pull request.
    const writes = rig.github.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/\/\d+/g, "/N")}`);
    const commitAt = writes.indexOf("POST /graphql");
    expect(writes.slice(commitAt)).toEqual([
      "POST /graphql",
      "PATCH /repos/Codertocat/Hello-World/issues/comments/N",
      "POST /repos/Codertocat/Hello-World/issues/N/reactions",
    ]);

    // The branch holds one commit by the app with exactly the fix.
    expect(rig.botBranches()).toBe("magis/issue-1");
    expect(rig.git.git(FULL, "rev-list", "--count", "main..magis/issue-1")).toBe("1");
    // Made by one GraphQL createCommitOnBranch, not pushed: GitHub records the app as author, commits it itself and signs it.
    expect(rig.git.git(FULL, "log", "-1", "--format=%an <%ae> / %cn <%ce>", "magis/issue-1")).toBe(
      `${rig.github.botLogin} <${rig.github.botEmail}> / GitHub <noreply@github.com>`,
    );
    expect(rig.git.requests.filter((r) => r.path.endsWith("git-receive-pack"))).toEqual([]);
    expect(rig.github.find("POST", /\/git\/(blobs|trees|commits)$|^\/graphql$/).map((r) => r.path)).toEqual(["/graphql"]);
    const diff = rig.git.git(FULL, "diff", "main", "magis/issue-1");
    expect(diff).toContain("-Please committ your changes before you push them.\n+Please commit your changes before you push them.");
    expect(rig.git.git(FULL, "diff", "--stat", "main", "magis/issue-1")).toMatch(/README\.md \| 2 \+-\n 1 file changed/);

    // The PR: titled from the issue, its body the report with the meeting, the QA comments and Fixes #1.
    // Opened in the commit's own GraphQL request.
    const [body] = rig.github.pulls;
    expect(body).toMatchObject({ title: "Spelling error in the README file", head: "magis/issue-1", base: "main", draft: false });
    expect(body!.body).toContain("Fixes #1");
    expect(body!.body).toContain(MARKS.kickoff);
    expect(body!.body).toContain(MARKS.firstReview);
    expect(body!.body).toContain(MARKS.secondReview);

    // The hidden instruction in the issue never reached the model; the token reached nothing the app wrote.
    expect(rig.model.requests.some((r) => r.messages.some((m) => m.content.includes("ignore all previous instructions")))).toBe(false);
    expect(rig.model.requests.some((r) => r.messages.some((m) => m.content.includes("accidently spelled")))).toBe(true);
    expect(rig.app.logs.length).toBeGreaterThan(10);
    expect(rig.traces().trim().split("\n")).toHaveLength(rig.model.requests.length);
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });

  it("fetches the branch's recent commits beside the clone where the server sends history", async () => {
    rig.git.git(FULL, "config", "uploadpack.allowFilter", "true");
    await rig.setUp();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-history");
    await rig.app.services.settled();
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ status: "succeeded" });
    // One advertisement, then one upload-pack request for the files and one for the history (commits and trees).
    expect(rig.git.requests.filter((r) => r.path.endsWith("info/refs"))).toHaveLength(1);
    expect(rig.git.requests.filter((r) => r.path.endsWith("git-upload-pack"))).toHaveLength(2);
    expect(rig.app.logs.join("\n")).not.toContain("ranking without the commit history");
  });

  it("runs without the history where the server cannot send it, and says why in the log", async () => {
    await rig.setUp();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-no-history");
    await rig.app.services.settled();
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ status: "succeeded" });
    expect(rig.git.requests.filter((r) => r.path.endsWith("git-upload-pack"))).toHaveLength(1);
    const logs = rig.app.logs.join("\n");
    expect(logs).toContain("ranking without the commit history");
    expect(logs).toContain("cannot send history without file contents");
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });

  it("clones from the injected git base URL instead of the API's clone_url", async () => {
    // github.com is unreachable here (the network is closed), so the run can only succeed through the local server.
    await rig.setUp({ gitBaseUrl: rig.git.url, cloneUrl: `https://github.com/${FULL}.git` });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-base-url");
    await rig.app.services.settled();
    expect((await rig.jobs())[0], (await rig.jobs())[0]?.detail ?? "").toMatchObject({ status: "succeeded" });
    expect(rig.botBranches()).toBe("magis/issue-1");
  });

  it("keeps the first job's objects and history, so the retry after main moved fetches only what the new commit adds", async () => {
    await rig.setUp({ keepObjects: true });
    // A server that sends history without contents, as GitHub does.
    rig.git.git(FULL, "config", "uploadpack.allowFilter", "true");
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-keep-1");
    await rig.app.services.settled();
    const kept = path.join(rig.root, "work", `magis-objects-${process.getuid!()}`);
    const [folder] = fs.readdirSync(kept);
    const manifest = () =>
      fs
        .readFileSync(path.join(kept, folder!, "head"), "utf8")
        .trim()
        .split("\n");
    expect(manifest()).toHaveLength(2);
    expect(manifest()[0]).toBe(rig.git.git(FULL, "rev-parse", "main"));
    // And the branch's history beside them, read whole this first time.
    const history = () => JSON.parse(fs.readFileSync(path.join(kept, folder!, "history", "history.json"), "utf8")) as { head: string; packs: string[] };
    expect(history().head).toBe(rig.git.git(FULL, "rev-parse", "main"));
    expect(history().packs).toHaveLength(1);

    addCommit(rig.root, FULL, { branch: "main", files: { "NOTES.md": "Notes.\n" }, message: "notes", author: { name: "Ada", email: "ada@example.com" } });
    scriptResolve(rig.model);
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry", installationId: INSTALLATION }), "d-keep-2");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect((await rig.jobs()).filter((j) => j.status === "succeeded")).toHaveLength(2);
    // The retry's clone stood on the first job's pack and kept a second one beside it, at the new main.
    const [head, ...packs] = manifest();
    expect(head).toBe(rig.git.git(FULL, "rev-parse", "main"));
    expect(packs).toHaveLength(2);
    const added = packs.map((pack) => fs.readFileSync(path.join(kept, folder!, `${pack}.pack`)).readUInt32BE(8)).sort((a, b) => a - b);
    expect(added[0]).toBeLessThan(added[1]!);
    expect(rig.git.git(FULL, "rev-list", "--count", "main..magis/issue-1")).toBe("1");
    expect(fs.statSync(kept).mode & 0o077).toBe(0);
    // The retry's history asked only for the commit made since, and kept it beside the first job's.
    expect(history().head).toBe(head);
    expect(history().packs).toHaveLength(2);
  });

  it("/magis retry while a run is under way is answered, not run twice; afterwards it updates the same PR", async () => {
    await rig.setUp();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-first");
    const retry = commentPayload({ body: "/magis retry keep the wording, fix only the typo", installationId: INSTALLATION });
    await rig.app.deliver("issue_comment", retry, "d-too-early");
    await rig.app.services.settled();
    expect(rig.github.comments.filter((c) => c.body.includes("already working on this issue"))).toHaveLength(1);
    expect((await rig.jobs()).map((j) => j.status).sort(), JSON.stringify(await rig.jobs())).toEqual(["declined", "succeeded"]);

    scriptResolve(rig.model);
    await rig.app.deliver("issue_comment", retry, "d-retry");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect((await rig.jobs()).filter((j) => j.status === "succeeded")).toHaveLength(2);
    // The same PR was updated, in the request that moved its branch; the branch was replaced by one new commit of the bot.
    expect(rig.github.pulls).toHaveLength(1);
    expect(rig.github.find("PATCH", /\/pulls\/100$/)).toEqual([]);
    expect(rig.github.find("POST", /^\/graphql$/).at(-1)!.body).toMatchObject({ variables: { pull: { pullRequestId: "PR_fake100" } } });
    expect(rig.git.git(FULL, "rev-list", "--count", "main..magis/issue-1")).toBe("1");
    // Created with its commit (createCommitOnBranch), then replaced whole (forced, Git Data API) while still at that commit.
    type RefUpdate = { beforeOid: string; afterOid: string; force: boolean };
    const [first, second] = rig.github
      .find("POST", /^\/graphql$/)
      .map((r) => (r.body as { variables: { create?: RefUpdate[]; refUpdates?: RefUpdate[] } }).variables);
    expect(first!.create).toMatchObject([{ beforeOid: "0".repeat(40) }]);
    const firstCommit = rig.github.find("POST", /\/git\/commits$/)[0]!.body as { parents: string[] };
    expect(firstCommit.parents).toEqual([first!.create![0]!.afterOid]);
    expect(second!.refUpdates![0]).toMatchObject({ afterOid: rig.git.git(FULL, "rev-parse", "magis/issue-1"), force: true });
    expect(second!.refUpdates![0]!.beforeOid).not.toBe("0".repeat(40));
    expect(rig.git.requests.filter((r) => r.path.endsWith("git-receive-pack"))).toEqual([]);
    // The guidance reached the agents as a hint; the retry comment got the reactions.
    expect(rig.model.requests.some((r) => r.messages.some((m) => m.content.includes("keep the wording, fix only the typo")))).toBe(true);
    expect(rig.github.reactions.filter((r) => r.target === `issues/comments/${retry.comment.id}`).map((r) => r.content)).toEqual(["eyes", "rocket"]);
  });

  it("on start, marks a job left running by a previous process failed and says so in its status comment", async () => {
    const earlier = openSqliteStore(path.join(rig.root, "magis.db"));
    await earlier.migrate();
    const store = earlier.jobs;
    const job = (await store.add({
      delivery: "old",
      key: jobKey(OWNER, REPO, 1),
      kind: "resolve-issue",
      installationId: INSTALLATION,
      owner: OWNER,
      repo: REPO,
      number: 1,
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
      comments: [
        // A person's comment carrying the same marker is not the run's status comment and is never edited.
        { body: `<!-- magis:status job=${job.id} -->\nMy own words.`, user: { login: "Codertocat", type: "User" } },
        {
          body: `<!-- magis:status job=${job.id} -->\n### 👀 MAGIS is working on this\n\n- [x] Located 1 file\n- [ ] Open the pull request`,
          user: { login: "magis-bot[bot]", type: "Bot" },
        },
      ],
    });
    rig.app = await startApp(SECRET, {
      env: { OPENAI_BASE_URL: rig.model.url, MAGIS_TRACE_DIR: "" },
      seams: { backend: new SqliteBackend(openDatabase(path.join(rig.root, "magis.db"))) },
    });
    expect(await rig.app.services.jobs.get(job.id)).toMatchObject({ status: "failed", stage: "code" });
    const [mine, status] = rig.github.comments;
    expect(status!.history).toHaveLength(2);
    expect(status!.body).toContain("😕 MAGIS could not finish this run");
    expect(status!.body).toContain("- [x] Located 1 file");
    expect(status!.body).toContain("**Failed at:** code");
    expect(status!.body).toContain("/magis retry");
    expect(mine!.history).toEqual([`<!-- magis:status job=${job.id} -->\nMy own words.`]);
  });
});
