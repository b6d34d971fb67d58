import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../../../src/backends/postgres/postgres-store.js";
import type { Octokit } from "../../../src/github/types.js";
import type { DeskEvent } from "../../../src/triggers/desk/desk-options.js";
import { StoreUnavailableError } from "../../../src/triggers/desk/record-or-spool.js";
import { TriggerDesk } from "../../../src/triggers/trigger-desk.js";
import type { TriggerRule } from "../../../src/triggers/trigger-rule.js";
import { TriggerSpool } from "../../../src/triggers/trigger-spool.js";
import { closeRelays, cuttableRelay } from "../../support/cuttable-relay.js";
import { labeledTrigger } from "../../support/labeled-trigger.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await closeRelays();
});

const log = { info: () => {}, warn: () => {} };
const octokit = new ProbotOctokit() as unknown as Octokit;

/** A desk on PostgreSQL through a relay the test cuts (the database down for a moment), spooling under a temp folder. */
async function deskBehindRelay(limits?: ConstructorParameters<typeof TriggerSpool>[1]) {
  const url = await server.newDatabase();
  const relay = await cuttableRelay(url);
  const store: PostgresStore = await openPostgresStore(relay.url, { poolSize: 2 });
  cleanups.push(() => store.close());
  await store.migrate();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-spool-test-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const spool = new TriggerSpool(path.join(dir, "spool"), limits);
  const decided: string[] = [];
  const events: DeskEvent[] = [];
  const rule: TriggerRule<"issues.labeled"> = {
    event: "issues.labeled",
    wants: () => true,
    decide: async (context) => {
      decided.push(context.id);
      return { outcome: "ignored", detail: "seen" };
    },
  };
  const desk = new TriggerDesk(store.triggers, [rule], {
    auth: async () => octokit,
    log,
    spool,
    onEvent: (event) => events.push(event),
    timing: { replayMs: 50, retryFirstMs: 50, recordWaitMs: 500 },
  });
  cleanups.push(() => desk.stop());
  await desk.start();
  const deliver = (id: string, issue = 1) =>
    desk.receive(labeledTrigger(id, issue, { installation: 7, repository: "demo", sender: "alice" }, { octokit, log }));
  return { relay, store, spool, desk, decided, events, deliver };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// PostgreSQL stopped for 8 s: 80 of 80 deliveries were answered 500 and never recorded, and GitHub does not resend them.
it("answers the deliveries the store cannot take, keeps them, and records and decides them in order once it is back", async () => {
  const { relay, store, spool, desk, decided, events, deliver } = await deskBehindRelay();
  relay.cut();
  for (const id of ["d-1", "d-2", "d-3"]) await expect(deliver(id)).resolves.toBeUndefined();
  await deliver("d-4", 2);
  expect(spool.depth).toBe(4);
  expect(events).toEqual(["spooled", "spooled", "spooled", "spooled"]);
  // Still down: nothing is lost while the replays fail.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(spool.depth).toBe(4);
  relay.mend();
  await until(() => decided.length === 4, "the spooled deliveries to be decided");
  await desk.settled();
  expect(decided.filter((id) => id !== "d-4")).toEqual(["d-1", "d-2", "d-3"]);
  expect(spool.depth).toBe(0);
  expect(events.filter((e) => e === "replayed")).toHaveLength(4);
  for (const id of ["d-1", "d-2", "d-3", "d-4"]) expect(await store.triggers.get(id)).toMatchObject({ outcome: "ignored", detail: "seen" });
  // A delivery GitHub resends after it was replayed is a redelivery, decided once.
  await deliver("d-1");
  await desk.settled();
  expect(decided).toHaveLength(4);
});

it("answers 503 and counts it when the spool is full, keeping what it held", async () => {
  const { relay, spool, decided, events, deliver, desk } = await deskBehindRelay({ maxFiles: 2, maxBytes: 1024 * 1024 });
  relay.cut();
  await deliver("kept-1");
  await deliver("kept-2");
  const refused = await deliver("refused").then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(StoreUnavailableError);
  expect(refused).toMatchObject({ status: 503, message: expect.stringMatching(/could not record this delivery .*redeliver it/) });
  expect(events).toEqual(["spooled", "spooled", "spool_full"]);
  expect(spool.depth).toBe(2);
  relay.mend();
  await until(() => decided.length === 2, "the kept deliveries to be decided");
  await desk.settled();
  expect(decided).toEqual(["kept-1", "kept-2"]);
});

it("replays on start what a process that stopped while the store was down had spooled", async () => {
  const first = await deskBehindRelay();
  first.relay.cut();
  await first.deliver("left-behind");
  first.desk.stop();
  first.relay.mend();
  // The next process on the same spool folder and store.
  const events: DeskEvent[] = [];
  const decided: string[] = [];
  const next = new TriggerDesk(
    first.store.triggers,
    [{ event: "issues.labeled", wants: () => true, decide: async (context) => (decided.push(context.id), { outcome: "ignored", detail: "seen" }) }],
    { auth: async () => octokit, log, spool: first.spool, onEvent: (event) => events.push(event), timing: { replayMs: 50, retryFirstMs: 50 } },
  );
  cleanups.push(() => next.stop());
  await next.start();
  await until(() => decided.length === 1, "the spooled delivery to be decided");
  await next.settled();
  expect(decided).toEqual(["left-behind"]);
  expect(events).toEqual(["replayed"]);
  expect(first.spool.depth).toBe(0);
});

// pg waits 10 s for a connection, and GitHub gives up on a webhook after 10 s: a database that drops packets must not
// hold the answer that long.
it("spools a delivery the store does not answer in time, and decides it once", async () => {
  const { relay, spool, decided, events, deliver, desk, store } = await deskBehindRelay();
  relay.stall();
  // Answered while the database still says nothing (it says nothing until mended).
  await deliver("d-silent");
  expect(events).toEqual(["spooled"]);
  expect(spool.depth).toBe(1);
  relay.mend();
  await until(() => decided.length === 1 && spool.depth === 0, "the delivery to be decided and its spooled copy dropped", 15_000);
  await desk.settled();
  expect(decided).toEqual(["d-silent"]);
  expect(await store.triggers.get("d-silent")).toMatchObject({ outcome: "ignored" });
});
