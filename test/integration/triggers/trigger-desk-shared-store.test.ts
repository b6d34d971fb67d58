import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, expect, it } from "vitest";
import { triggerContext } from "../../../src/triggers/trigger-context.js";
import { TriggerDesk } from "../../../src/triggers/trigger-desk.js";
import type { TriggerRule } from "../../../src/triggers/trigger-rule.js";
import type { Octokit } from "../../../src/github/types.js";
import { PostgresQueue } from "../../../src/backends/postgres/postgres-queue.js";
import { jobKey } from "../../../src/store/jobs.js";
import { openPostgresStore } from "../../../src/backends/postgres/postgres-store.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

// A web process that records a trigger holds it for a lease; one that dies before deciding it leaves it to the others,
// which look every half lease for triggers whose lease ran out, while they run.
it("decides a trigger that a web process which died recorded, while this web process keeps running", async () => {
  const store = await openPostgresStore(await server.newDatabase());
  let desk: TriggerDesk | undefined;
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
    // As createServices sets it up for a shared store, with a shorter lease.
    desk = new TriggerDesk(store.triggers, [rule], { auth: async () => new ProbotOctokit() as unknown as Octokit, log, leaseMs: 400 });
    await desk.start();
    // Another web process records a delivery (holding it for the lease), then is killed before it decides it.
    const payload = {
      action: "labeled",
      installation: { id: 7 },
      repository: { name: "demo", owner: { login: "octo" } },
      issue: { number: 1 },
      sender: { login: "alice", type: "User" },
    };
    const recordedAt = Date.now();
    await store.triggers.record(
      { delivery: "orphan-1", event: "issues.labeled", installationId: 7, owner: "octo", repo: "demo", number: 1, payload, receivedAt: recordedAt },
      400,
    );
    const deadline = Date.now() + 3_000;
    while (decided.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await desk.settled();
    // Not before its recorder's lease ran out, and once only.
    expect(Date.now() - recordedAt).toBeGreaterThanOrEqual(400);
    expect(decided).toEqual(["orphan-1"]);
    expect(await store.triggers.get("orphan-1")).toMatchObject({ outcome: "ignored" });
  } finally {
    desk?.stop();
    await store.close();
  }
});

// Each web process decides its deliveries on its own (calling GitHub), so a trigger whose decision took longer is
// queued after a later one another web process decided faster; its job still takes its place by when it arrived.
it("queues the jobs of one issue in the order their triggers arrived, when two web processes decide them", async () => {
  const url = await server.newDatabase();
  const stores = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
  const queues: PostgresQueue[] = [];
  try {
    await stores[0]!.migrate();
    const log = { info: () => {}, warn: () => {}, error: () => {} };
    const desks = stores.map((store, web) => {
      const queue = new PostgresQueue(store, async () => ({ status: "succeeded", detail: "done" }), { log, role: "web" });
      queues.push(queue);
      // The first web process's decision waits on a slow GitHub; the second's does not.
      const rule: TriggerRule = {
        event: "issues.labeled",
        wants: () => true,
        decide: async (context) => {
          if (web === 0) await new Promise((resolve) => setTimeout(resolve, 500));
          const { owner, repo } = context.repo();
          await queue.submit(
            { delivery: context.id, key: jobKey(owner, repo, 1), kind: "resolve-issue", installationId: 7, owner, repo, number: 1, payload: {} },
            "wait",
          );
          return { outcome: "queued", detail: "queued" };
        },
      };
      return new TriggerDesk(store.triggers, [rule], { auth: async () => new ProbotOctokit() as unknown as Octokit, log, leaseMs: 60_000 });
    });
    for (const queue of queues) await queue.start();
    const payload = {
      action: "labeled",
      installation: { id: 7 },
      repository: { name: "demo", owner: { login: "octo" } },
      issue: { number: 1 },
      sender: { login: "alice", type: "User" },
    };
    const deliver = (web: number, id: string) =>
      desks[web]!.receive(triggerContext({ delivery: id, event: "issues.labeled", payload }, new ProbotOctokit() as unknown as Octokit, log));
    await deliver(0, "arrived-first");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await deliver(1, "arrived-second");
    await Promise.all(desks.map((desk) => desk.settled()));
    // A worker runs the issue's line.
    const ran: string[] = [];
    const worker = new PostgresQueue(
      stores[0]!,
      async (job) => {
        ran.push(job.delivery);
        return { status: "succeeded", detail: "done" };
      },
      { log, role: "worker" },
    );
    queues.push(worker);
    await worker.start();
    await worker.drain();
    expect(ran).toEqual(["arrived-first", "arrived-second"]);
  } finally {
    for (const queue of queues) await queue.stop(0);
    for (const store of stores) await store.close();
  }
});
