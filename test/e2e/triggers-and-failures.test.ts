import { describe, expect, it } from "vitest";
import { INSTALLATION, TOKEN, useRig } from "./e2e-rig.js";
import { commentPayload, labeledPayload } from "./payloads.js";

const rig = useRig();

describe("what the app refuses, ignores or reports as failed, end to end", () => {
  it("rejects a webhook with a bad signature with 400 and starts nothing", async () => {
    await rig.setUp();
    const status = await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-bad", "sha256=" + "0".repeat(64));
    expect(status).toBe(400);
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.github.requests).toEqual([]);
    expect(rig.model.requests).toEqual([]);
  });

  it("runs a redelivered webhook once", async () => {
    await rig.setUp({ brokenModel: true });
    const payload = labeledPayload({ installationId: INSTALLATION });
    expect(await rig.app.deliver("issues", payload, "delivery-twice")).toBe(200);
    expect(rig.app.services.desk.wasRedelivery("delivery-twice")).toBe(false);
    expect(await rig.app.deliver("issues", payload, "delivery-twice")).toBe(200);
    // The second is a redelivery, as /metrics counts it (asked once).
    expect(rig.app.services.desk.wasRedelivery("delivery-twice")).toBe(true);
    expect(rig.app.services.desk.wasRedelivery("delivery-twice")).toBe(false);
    await rig.app.services.settled();
    expect(await rig.jobs()).toHaveLength(1);
    expect(rig.github.comments.filter((c) => c.body.includes("<!-- magis:status"))).toHaveLength(1);
  });

  it("runs nothing for a sender without write permission, and answers an unauthorized /magis retry once", async () => {
    await rig.setUp();
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, sender: "reader" }), "d-label")).toBe(200);
    expect(
      await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry please", sender: "stranger", installationId: INSTALLATION }), "d-retry"),
    ).toBe(200);
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.model.requests).toEqual([]);
    expect(rig.github.comments.map((c) => c.body)).toEqual([
      "@stranger only people with write, maintain, admin permission on this repository may run `/magis retry`.",
    ]);
    expect(rig.botBranches()).toBe("");
  });

  it("answers an outsider's thirty /magis retry comments once, and calls GitHub for the first only", async () => {
    await rig.setUp();
    for (let i = 0; i < 30; i++) {
      await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry", sender: "stranger", installationId: INSTALLATION }), `d-spam-${i}`);
    }
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.github.comments.map((c) => c.body)).toEqual([
      "@stranger only people with write, maintain, admin permission on this repository may run `/magis retry`.",
    ]);
    // The first: a token, the config, the permission, the reply. The other twenty-nine: nothing.
    expect(rig.github.requests.length).toBeLessThanOrEqual(5);
    const triggers = await rig.app.services.triggers.all();
    expect(triggers.filter((t) => t.detail?.includes("within the hour"))).toHaveLength(29);
  });

  it("ignores bots, other labels, and comments that are not commands", async () => {
    await rig.setUp();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, senderType: "Bot", sender: "magis-bot[bot]" }), "d-bot");
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION, label: "bug" }), "d-other");
    await rig.app.deliver("issue_comment", commentPayload({ body: "Thanks! /magis retry later maybe", installationId: INSTALLATION }), "d-chat");
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.github.comments).toEqual([]);
  });

  it("answers a broken config with one comment listing every problem, and runs nothing", async () => {
    await rig.setUp({ config: "label: magis\ntop_k: many\ndraft: sometimes\nunknown_field: 1\n" });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-config");
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.github.comments).toHaveLength(1);
    const [comment] = rig.github.comments;
    for (const field of ["top_k", "draft", "unknown_field"]) expect(comment!.body).toContain(field);
  });

  it("refuses a repository over max_repo_mb with a clear status, before cloning", async () => {
    await rig.setUp({ config: "max_repo_mb: 50\n", sizeKb: 80 * 1024 });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-big");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "clone" });
    const [status] = rig.github.comments;
    expect(status!.body).toContain("**Failed at:** clone");
    expect(status!.body).toContain("about 80 MB, over the limit of 50 MB (max_repo_mb)");
    expect(status!.body).toContain("Raise `max_repo_mb`");
    expect(rig.git.requests).toEqual([]);
    expect(rig.model.requests).toEqual([]);
  });

  it("stops a run whose config chooses a model the operator does not allow, before any model call, naming the field", async () => {
    await rig.setUp({ config: "models:\n  developer: o1-pro-expensive\n", env: { MAGIS_MODEL: "gpt-4o-mini" } });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-model");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "config" });
    const [status] = rig.github.comments;
    expect(status!.body).toContain("models.developer: names a model this app's operator does not allow");
    expect(status!.body).toContain("MAGIS_ALLOWED_MODELS");
    expect(status!.body).not.toContain("o1-pro-expensive");
    expect(rig.model.requests).toEqual([]);
  });

  it("runs a config's model when the operator allows it", async () => {
    await rig.setUp({
      config: "models:\n  developer: o1-mini\n",
      env: { MAGIS_MODEL: "gpt-4o-mini", MAGIS_ALLOWED_MODELS: "o1-mini, o3-mini" },
      brokenModel: true,
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-model-ok");
    await rig.app.services.settled();
    // It got as far as the model (which is broken here): the config's choice was taken.
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "locate" });
  });

  it("ignores closed issues and pull requests posing as issues", async () => {
    await rig.setUp();
    const closed = labeledPayload({ installationId: INSTALLATION });
    closed.issue.state = "closed";
    const pull = labeledPayload({ installationId: INSTALLATION });
    pull.issue.pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" };
    const retryOnPull = commentPayload({ body: "/magis retry", installationId: INSTALLATION });
    retryOnPull.issue.pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" };
    await rig.app.deliver("issues", closed, "d-closed");
    await rig.app.deliver("issues", pull, "d-pull");
    await rig.app.deliver("issue_comment", retryOnPull, "d-pull-retry");
    await rig.app.services.settled();
    expect(await rig.jobs()).toEqual([]);
    expect(rig.github.requests.filter((r) => !r.path.includes("access_tokens"))).toEqual([]);
  });

  it("leaves a failure status comment and no branch when the model fails", async () => {
    await rig.setUp({ brokenModel: true });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-fail");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ status: "failed", stage: "locate" });
    const [status] = rig.github.comments;
    expect(status!.history.length).toBeGreaterThan(1);
    expect(status!.body).toContain("😕 MAGIS could not finish this run");
    expect(status!.body).toContain("**Failed at:** locate");
    expect(status!.body).toMatch(/\*\*Why:\*\* .*500/);
    expect(status!.body).toContain("custodian-summarize-file");
    expect(status!.body).toMatch(/\*\*Next step:\*\* .*Then comment `\/magis retry`\./);
    expect(rig.github.reactions.map((r) => r.content)).toEqual(["eyes", "confused"]);
    expect(rig.botBranches()).toBe("");
    expect(rig.github.pulls).toEqual([]);
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });
});
