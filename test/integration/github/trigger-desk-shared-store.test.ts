import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TriggerDesk, type TriggerRule } from "../../../src/github/trigger-desk.js";
import type { Octokit } from "../../../src/github/types.js";
import { openPostgresStore } from "../../../src/store/postgres/postgres-store.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

// KNOWN DEFECT, not fixed on this branch (review of issue 13): the desk takes up the triggers another web process
// recorded and never decided only in `start`, so while every web process keeps running, such a trigger stays undecided
// for ever (and a redelivery of it is answered as already recorded, without acting). `it.fails` keeps the suite green
// while the defect stands; once a running desk takes them up, this test fails: make it `it` then.
it.fails("decides a trigger that a web process which died recorded, while this web process keeps running", async () => {
  const store = await openPostgresStore(await server.newDatabase());
  try {
    await store.migrate();
    const decided: string[] = [];
    const rule: TriggerRule = {
      event: "issues.labeled",
      wants: () => true,
      decide: async (context) => {
        decided.push(context.id);
        return { outcome: "ignored", detail: "seen" };
      },
    };
    const log = { info: () => {}, warn: () => {} };
    // As createServices sets it up for a shared store, with a shorter wait: younger triggers are left to their recorder.
    const desk = new TriggerDesk(store.triggers, [rule], { auth: async () => new ProbotOctokit() as unknown as Octokit, log, undecidedAfterMs: 200 });
    await desk.start();
    // Another web process records a delivery, then is killed before it decides it.
    await store.triggers.record({
      delivery: "orphan-1",
      event: "issues.labeled",
      installationId: 7,
      owner: "octo",
      repo: "demo",
      number: 1,
      payload: { action: "labeled", installation: { id: 7 }, repository: { name: "demo", owner: { login: "octo" } }, issue: { number: 1 }, sender: { login: "alice", type: "User" } },
      receivedAt: Date.now(),
    });
    const deadline = Date.now() + 3_000;
    while (decided.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await desk.settled();
    expect(decided).toEqual(["orphan-1"]);
    expect(await store.triggers.get("orphan-1")).toMatchObject({ outcome: "ignored" });
  } finally {
    await store.close();
  }
});
