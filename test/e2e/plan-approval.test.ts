import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { INSTALLATION, useRig, type Rig } from "./e2e-rig.js";
import { commentPayload, labeledPayload } from "./payloads.js";
import { scriptResolve } from "./script-resolve.js";
import { manualClock } from "../support/manual-clock.js";

const rig = useRig();
const GUIDANCE = "keep the rest of the sentence exactly as it is";

/** The status comment of the run. */
function status(): string {
  return rig.github.comments.find((c) => c.body.includes("<!-- magis:status job="))?.body ?? "";
}

/** Waits until the run's session holds its plan-wait (the job waits for approval); returns the job's id. */
async function untilWaiting(r: Rig): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [job] = await r.app.services.jobs.withStatus("running");
    if (job && (await r.app.services.store.sessions.read(job.id)).some((row) => row.kind === "plan-wait") && status().includes("/magis go")) return job.id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the job never waited for approval; status: ${status()}`);
}

const developerAsked = () => rig.model.requests.filter((r) => r.agent === "developer" && r.prompt === "developer-locate-lines");

describe("plan approval (plan_approval: true), end to end", () => {
  it("waits after the plan; a go from a reader is refused, a go from a writer continues with its guidance as a hint", async () => {
    await rig.setUp({ config: "plan_approval: true\n" });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-label");
    const jobId = await untilWaiting(rig);
    // The plan and the tasks are shown, with how to approve, and no Developer has written anything yet.
    expect(status()).toContain("MAGIS waits for its plan to be approved");
    expect(status()).toContain("`README.md` (Docs Editor): Line 4 of README.md spells 'commit' as 'committ'.");
    expect(developerAsked()).toEqual([]);

    // Someone with read permission only: answered as every command is, and the job still waits.
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis go", sender: "reader", installationId: INSTALLATION }), "delivery-go-reader");
    await rig.app.services.desk.settled();
    expect(rig.github.comments.some((c) => c.body.includes("@reader only people with write"))).toBe(true);
    expect((await rig.app.services.store.sessions.read(jobId)).some((row) => row.kind === "steer")).toBe(false);
    expect((await rig.app.services.jobs.get(jobId))?.status).toBe("running");

    await rig.app.deliver("issue_comment", commentPayload({ body: `/magis go ${GUIDANCE}`, installationId: INSTALLATION }), "delivery-go");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect(await rig.app.services.jobs.get(jobId)).toMatchObject({ status: "succeeded" });
    const steer = (await rig.app.services.store.sessions.read(jobId)).find((row) => row.kind === "steer");
    expect(JSON.parse(steer!.data)).toEqual({ action: "go", by: "Codertocat", guidance: GUIDANCE, via: "comment" });
    // The guidance reached the Developers' prompts, and only after the approval did they write code.
    expect(developerAsked().length).toBeGreaterThan(0);
    expect(developerAsked().every((r) => r.messages.some((m) => m.content.includes(GUIDANCE)))).toBe(true);
    expect(status()).toContain("Plan approved by @Codertocat");
    expect(status()).toContain("Pull request opened");
  });

  it("/magis retry while the plan waits plans again: the waiting run is cancelled, the new one waits, and a go continues it", async () => {
    // Two runs' answers: the second plans again.
    await rig.setUp({ config: "plan_approval: true\n", script: (model) => [1, 2].forEach(() => scriptResolve(model)) });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-first");
    const first = await untilWaiting(rig);
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry touch README.md alone", installationId: INSTALLATION }), "delivery-replan");
    await rig.app.services.desk.settled();
    const deadline = Date.now() + 20_000;
    let second: number | undefined;
    while (Date.now() < deadline && second === undefined) {
      const [running] = await rig.app.services.jobs.withStatus("running");
      if (running && running.id !== first && (await rig.app.services.store.sessions.read(running.id)).some((row) => row.kind === "plan-wait"))
        second = running.id;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await rig.app.services.jobs.get(first)).toMatchObject({ status: "cancelled", detail: "@Codertocat commented `/magis retry` to plan again" });
    expect(second).toBeDefined();
    expect(developerAsked()).toEqual([]);
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis go", installationId: INSTALLATION }), "delivery-go-second");
    await rig.app.services.settled();
    expect(await rig.app.services.jobs.get(second!)).toMatchObject({ status: "succeeded" });
    expect(developerAsked().every((r) => r.messages.some((m) => m.content.includes("touch README.md alone")))).toBe(true);
  });

  it("with nothing waiting, /magis go is answered that nothing waits", async () => {
    await rig.setUp();
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis go", installationId: INSTALLATION }), "delivery-go-nothing");
    await rig.app.services.settled();
    expect(rig.github.comments.some((c) => c.body.includes("@Codertocat no run of MAGIS on this issue is waiting for its plan to be approved"))).toBe(true);
    expect(await rig.jobs()).toEqual([]);
  });

  it("fails the plan stage without announcing a wait when the store does not keep the plan-wait", async () => {
    // Long enough that a wait announced anyway would still be open when the job is looked at.
    await rig.setUp({ config: "plan_approval: true\nplan_approval_minutes: 0.5\n" });
    // The app's own database file refuses the plan-wait (as a full disk would): the session's recorder goes on past it.
    const db = openDatabase(path.join(rig.root, "magis.db"));
    db.exec("CREATE TRIGGER refuse_plan_wait BEFORE INSERT ON session_entries WHEN NEW.kind = 'plan-wait' BEGIN SELECT RAISE(ABORT, 'disk is full'); END");
    db.close();
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-unstored");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ status: "failed", stage: "plan" });
    expect(status()).toContain("The wait for the plan's approval could not be stored in the job's session");
    expect(status()).not.toContain("MAGIS waits for its plan to be approved");
    expect(status()).not.toContain("Nobody approved the plan");
    expect(developerAsked()).toEqual([]);
    expect(rig.botBranches()).toBe("");
    // The session still says how the job ended, after the entries the store refused.
    expect((await rig.app.services.store.sessions.read(job!.id)).at(-1)?.kind).toBe("outcome");
  }, 60_000);

  it("ends without writing code when nobody approves in time, and the wait does not eat job_timeout_minutes", async () => {
    // The job's limit counts on a clock only the test moves: clone, locate and plan take what the machine needs, and the
    // limit runs out exactly when the test says, while the job waits.
    const clock = manualClock();
    await rig.setUp({ config: "plan_approval: true\nplan_approval_minutes: 0.15\njob_timeout_minutes: 1\n", limitClock: clock });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-timeout");
    const jobId = await untilWaiting(rig);
    // Twice the job's minute passes during the wait: counted against the job, it would stop it at once.
    clock.advance(2 * 60_000);
    await rig.app.services.settled();
    expect(await rig.app.services.jobs.get(jobId)).toMatchObject({ status: "failed", stage: "plan" });
    expect(status()).toContain("Nobody approved the plan within 0.15 minutes, so no code was written and nothing was pushed.");
    expect(status()).toContain("Comment `/magis retry` to plan again");
    expect(status()).not.toContain("job_timeout_minutes (");
    expect(developerAsked()).toEqual([]);
    expect(rig.botBranches()).toBe("");
  }, 60_000);
});
