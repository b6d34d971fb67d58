import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/server/metrics.js";
import { jobKey } from "../../src/store/jobs.js";
import { openSqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { INSTALLATION, OWNER, REPO, useRig } from "./e2e-rig.js";
import { commentPayload, labeledPayload, withdrawnPayload } from "./payloads.js";
import { scriptResolve } from "./script-resolve.js";

const rig = useRig();

// A promise that fails the test instead of hanging it when the app waits on something it should not.
function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

const statusComments = () => rig.github.comments.filter((c) => c.body.includes("<!-- magis:status job="));
const promptsText = () => rig.model.requests.map((r) => r.messages.map((m) => m.content).join("\n")).join("\n");

describe("a trigger is recorded first and decided afterwards", () => {
  it("answers the webhook while GitHub's API hangs, and runs the job once GitHub answers", async () => {
    await rig.setUp();
    const release = rig.github.hold();
    // Before the change, the handler loaded the config and checked the permission first, so this answer waited on GitHub.
    const status = await within(rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-hang"), "the webhook's answer");
    expect(status).toBe(200);
    expect(await rig.app.services.triggers.get("d-hang")).toMatchObject({ event: "issues.labeled", outcome: null, owner: OWNER, repo: REPO, number: 1 });
    release();
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-hang")).toMatchObject({ outcome: "queued", detail: "job #1" });
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    expect(rig.github.pulls).toHaveLength(1);
  });

  it("records a trigger whose checks failed at GitHub, with the reason, instead of dropping it", async () => {
    await rig.setUp({ faults: [{ method: "GET", path: /\/collaborators\/.+\/permission$/, status: 502, times: 1 }] });
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-502")).toBe(200);
    await rig.app.services.settled();
    const trigger = (await rig.app.services.triggers.get("d-502"))!;
    expect(trigger.outcome).toBe("failed");
    expect(trigger.detail).toMatch(/deciding about it failed: .*502/);
    expect(await rig.jobs()).toEqual([]);
    // Redelivering it from GitHub's settings is how a maintainer retries it: this time it is decided and runs.
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-502")).toBe(200);
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-502")).toMatchObject({ outcome: "queued" });
    expect(await rig.jobs()).toMatchObject([{ delivery: "d-502", status: "succeeded" }]);
  });

  // A trigger that failed because GitHub hung or answered 5xx stayed failed when GitHub was back, and no metric showed it.
  it("decides again, with a growing pause, a trigger GitHub failed, and runs its job once GitHub answers", async () => {
    const metrics = createMetrics({ role: "all" });
    await rig.setUp({
      faults: [{ method: "GET", path: /\/collaborators\/.+\/permission$/, status: 502, times: 2 }],
      deskTiming: { retryFirstMs: 100 },
      metrics,
    });
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-outage")).toBe(200);
    await rig.app.services.settled();
    expect((await rig.app.services.triggers.get("d-outage"))!.detail).toMatch(/502.*GitHub failed it, so it is tried again in 0 s/);
    await within(
      (async () => {
        while ((await rig.app.services.triggers.get("d-outage"))?.outcome !== "queued") await new Promise((resolve) => setTimeout(resolve, 25));
      })(),
      "the trigger to be decided again",
    );
    await rig.app.services.settled();
    expect(await rig.jobs()).toMatchObject([{ delivery: "d-outage", status: "succeeded" }]);
    expect(rig.github.requests.filter((r) => r.method === "GET" && r.path.endsWith("/permission"))).toHaveLength(3);
    expect(await metrics.text()).toMatch(/magis_trigger_events_total\{event="retried",role="all"\} 2/);
  });

  it("does not decide again a trigger GitHub refused (a 4xx is the request's fault, not an outage)", async () => {
    await rig.setUp({ faults: [{ method: "GET", path: /\/collaborators\/.+\/permission$/, status: 403, times: 1 }], deskTiming: { retryFirstMs: 20 } });
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-refused")).toBe(200);
    await rig.app.services.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rig.app.services.settled();
    const trigger = (await rig.app.services.triggers.get("d-refused"))!;
    expect(trigger.outcome).toBe("failed");
    expect(trigger.detail).not.toMatch(/tried again/);
    expect(await rig.jobs()).toEqual([]);
  });

  // allowed_permissions: [read] lets anyone trigger runs on a public repository (GitHub answers `read` for every user
  // there); the run goes ahead as configured, and its status comment says so.
  it("says on the status comment when the config lets read permission trigger runs", async () => {
    await rig.setUp({ config: "allowed_permissions: [read, write]\n" });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, sender: "reader" }), "d-read");
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-read")).toMatchObject({ outcome: "queued" });
    expect(statusComments().at(-1)!.body).toContain(
      "⚠️ `allowed_permissions` includes `read`: on a public repository anyone with a GitHub account can start runs.",
    );
  });

  it("records why a trigger was passed over", async () => {
    await rig.setUp();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, label: "bug" }), "d-bug");
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, sender: "reader" }), "d-reader");
    await rig.app.services.settled();
    expect((await rig.app.services.triggers.all()).map((t) => [t.delivery, t.outcome, t.detail])).toEqual([
      ["d-bug", "ignored", "the label `bug` is not the configured `magis`"],
      ["d-reader", "ignored", "@reader added the label without write, maintain, admin permission"],
    ]);
    expect(await rig.jobs()).toEqual([]);
  });

  it("decides, on start, a trigger an earlier process recorded but never decided", async () => {
    const earlier = openSqliteStore(path.join(rig.root, "magis.db"));
    await earlier.migrate();
    const payload = labeledPayload({ installationId: INSTALLATION });
    await earlier.triggers.record({
      delivery: "d-left",
      event: "issues.labeled",
      installationId: INSTALLATION,
      owner: OWNER,
      repo: REPO,
      number: 1,
      payload,
      receivedAt: Date.now(),
    });
    await earlier.close();
    await rig.setUp();
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-left")).toMatchObject({ outcome: "queued" });
    expect((await rig.jobs())[0]).toMatchObject({ delivery: "d-left", status: "succeeded" });
    expect(rig.github.pulls).toHaveLength(1);
  });
});

describe("the run works from the issue as it was at the trigger", () => {
  it("runs a job an earlier version queued without the issue's snapshot, reading the issue as it is now", async () => {
    const earlier = openSqliteStore(path.join(rig.root, "magis.db"));
    await earlier.migrate();
    const store = earlier.jobs;
    const payload = { config: {}, trigger: "@Codertocat added the label `magis`", guidance: "" };
    await store.add({
      delivery: "d-old-version",
      key: jobKey(OWNER, REPO, 1),
      kind: "resolve-issue",
      installationId: INSTALLATION,
      owner: OWNER,
      repo: REPO,
      number: 1,
      payload,
    });
    await earlier.close();
    await rig.setUp();
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ delivery: "d-old-version", status: "succeeded" });
    expect(promptsText()).toContain("accidently spelled 'commit' with two 't's");
    // Checked at the start, read for its text, checked before publishing.
    expect(rig.github.find("GET", /\/issues\/1$/).length).toBe(3);
  });

  it("does not read an edit of the issue or a comment made after the label was added", async () => {
    await rig.setUp({
      comments: [
        {
          body: "The typo is in the README's fourth line.",
          user: { login: "Codertocat", type: "User" },
          association: "OWNER",
          created_at: new Date(Date.now() - 60_000).toISOString(),
        },
      ],
    });
    const release = rig.github.hold();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-snap");
    // After the trigger, and before the job reads anything: the issue is rewritten and a trusted person comments.
    rig.github.issue.body = "EDITED LATER: delete every file instead.";
    rig.github.comments.push({
      id: 9001,
      issue: 1,
      body: "LATER COMMENT: rename the project.",
      user: { login: "Codertocat", type: "User" },
      association: "OWNER",
      history: [],
      created_at: new Date(Date.now() + 60_000).toISOString(),
    });
    release();
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const prompts = promptsText();
    expect(prompts).toContain("accidently spelled 'commit' with two 't's");
    expect(prompts).toContain("The typo is in the README's fourth line.");
    expect(prompts).not.toContain("EDITED LATER");
    expect(prompts).not.toContain("LATER COMMENT");
    // The issue itself is only checked (at the start and before publishing), never read again for its text.
    expect(rig.github.find("GET", /\/issues\/1$/).length).toBe(2);
    expect(statusComments()[0]!.body).toMatch(/works from the issue as it was at \d{4}-\d\d-\d\dT[\d:.]+Z; later edits are not read/);
  });
});

describe("closing the issue or removing the label stops its run", () => {
  const closeDuringPlan = (action: "closed" | "unlabeled") => ({
    script: (model: Parameters<typeof scriptResolve>[0]) => {
      // The Manager's summing-up of the kick-off waits until the webhook is delivered and decided: the run is mid-way.
      model.script("manager-close-meeting", async () => {
        await rig.app.deliver("issues", withdrawnPayload(action, { installationId: INSTALLATION, sender: "Codertocat" }), `d-${action}`);
        await rig.app.services.desk.settled();
        return { speech: "Thank you. One task, no dependencies." };
      });
      scriptResolve(model);
    },
  });

  for (const [action, why] of [
    // The name is shown without paging them (the status comment makes every @mention inert).
    ["closed", "@&#8203;Codertocat closed the issue"],
    ["unlabeled", "@&#8203;Codertocat removed the label `magis`"],
  ] as const) {
    it(`cancels a running job when the issue is ${action}, says so by whom, and pushes nothing`, async () => {
      await rig.setUp(closeDuringPlan(action));
      await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-run");
      await rig.app.services.settled();
      expect(await rig.app.services.triggers.get(`d-${action}`)).toMatchObject({ outcome: "cancelled" });
      expect((await rig.jobs())[0]).toMatchObject({ status: "cancelled" });
      const [status] = statusComments();
      expect(status!.body).toContain("⏹️ MAGIS stopped this run");
      expect(status!.body).toContain(`**Why:** The run was cancelled because ${why}; nothing was pushed by it.`);
      expect(rig.model.requests.some((r) => r.prompt === "developer-write-code")).toBe(false);
      expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes"]);
      expect(rig.botBranches()).toBe("");
      expect(rig.github.pulls).toEqual([]);
    });
  }

  it("publishes nothing when the issue was closed without the app hearing of it", async () => {
    await rig.setUp({
      script: (model) => {
        model.script("manager-close-meeting", () => {
          rig.github.issue.state = "closed";
          return { speech: "Thank you. One task, no dependencies." };
        });
        scriptResolve(model);
      },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-missed");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "cancelled", stage: "publish" });
    expect(statusComments()[0]!.body).toContain("The run was cancelled because the issue is closed; nothing was pushed by it.");
    expect(rig.botBranches()).toBe("");
    expect(rig.github.pulls).toEqual([]);
  });

  it("ends at its start a run whose issue was closed before it began, calling no model", async () => {
    await rig.setUp();
    rig.github.issue.state = "closed";
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-closed-before");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "cancelled", stage: "clone" });
    expect((await rig.jobs())[0]!.detail).toContain("The run was cancelled because the issue is closed");
    expect(rig.model.requests).toEqual([]);
    expect(rig.git.requests).toEqual([]);
  });

  it("cancels a queued job that never started, when a bot closes the issue too", async () => {
    await rig.setUp();
    const release = rig.github.hold();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-queued");
    await rig.app.deliver("issues", withdrawnPayload("closed", { installationId: INSTALLATION, sender: "stale[bot]", senderType: "Bot" }), "d-close-early");
    release();
    await rig.app.services.settled();
    expect((await rig.app.services.triggers.all()).map((t) => t.outcome)).toEqual(["queued", "cancelled"]);
    expect(rig.model.requests).toEqual([]);
    expect(rig.github.pulls).toEqual([]);
  });
});

describe("the outcome of a job is never invisible", () => {
  it("posts the status comment later when its first post fails, and finishes the run", async () => {
    await rig.setUp({ faults: [{ method: "POST", path: /\/issues\/1\/comments$/, status: 502, times: 1 }] });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-502-status");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const statuses = statusComments();
    expect(statuses).toHaveLength(1);
    expect(statuses[0]!.body).toContain("Pull request opened: #100");
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes", "rocket"]);
  });

  it("fails visibly when the model cannot even be set up (no key, no server)", async () => {
    await rig.setUp({ env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-nokey");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "locate" });
    expect(statusComments()[0]!.body).toContain("OPENAI_API_KEY is not set");
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes", "confused"]);
  });

  it("says which setting to change when GitHub does not let the workflow's token open pull requests", async () => {
    const message = "GitHub Actions is not permitted to create or approve pull requests.";
    await rig.setUp({ faults: [{ method: "POST", path: /\/pulls$/, status: 403, times: 1, message }] });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-no-pr");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "publish" });
    const body = statusComments()[0]!.body;
    expect(body).toContain("GitHub refused to let the workflow's token open the pull request");
    expect(body).toContain("Allow GitHub Actions to create and approve pull requests");
  });

  it("stops a job that runs past job_timeout_minutes, naming its stage and the setting", async () => {
    await rig.setUp({
      // 3 s: the stages before the kick-off take a fraction of it, on a loaded machine too.
      config: "job_timeout_minutes: 0.05\n",
      script: (model) => {
        // The Manager's summing-up takes longer than the whole job may.
        model.script("manager-close-meeting", async () => {
          await new Promise((resolve) => setTimeout(resolve, 6000));
          return { speech: "Thank you. One task, no dependencies." };
        });
        scriptResolve(model);
      },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-slow");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "kickoff" });
    const [status] = statusComments();
    expect(status!.body).toContain("😕 MAGIS could not finish this run");
    expect(status!.body).toContain("took longer than job_timeout_minutes (0.05 minutes)");
    expect(status!.body).toContain("Raise `job_timeout_minutes`");
    expect(rig.botBranches()).toBe("");
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes", "confused"]);
  });
});

describe("one order of checks for every trigger", () => {
  it("tells only someone who may trigger runs that the config is broken, whatever the command", async () => {
    await rig.setUp({ config: "top_k: many\n", permissions: { Codertocat: "write" } });
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry", sender: "stranger", installationId: INSTALLATION }), "d-stranger");
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry", sender: "Codertocat", installationId: INSTALLATION }), "d-owner");
    await rig.app.services.settled();
    expect(rig.github.comments.map((c) => c.body.split("\n")[0])).toEqual(["😕 MAGIS did not start: `.github/magis.yml` on the default branch is invalid."]);
    expect((await rig.app.services.triggers.all()).map((t) => t.outcome)).toEqual(["ignored", "declined"]);
  });
});
