import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InProcessQueue, INTERRUPTED_REASON, type InProcessQueueOptions } from "../../../../src/backends/sqlite/sqlite-queue.js";
import type { JobRunner, QueueLog } from "../../../../src/jobs/job-queue.js";
import { JobStoreBusyError } from "../../../../src/store/store.js";
import { atStartUp, DEFAULT_STORE_WAITS } from "../../../../src/backends/sqlite/store-waits.js";
import { APP_LOCK_WAIT_MS, openDatabase, type Db } from "../../../../src/backends/sqlite/database.js";
import { jobKey, type JobRecord, type NewJob } from "../../../../src/store/jobs.js";
import { SqliteStore } from "../../../../src/backends/sqlite/sqlite-store.js";
import type { JobStore } from "../../../../src/store/store.js";
import { holdSqliteLock, longestStall, watchUnhandledRejections, type HeldLock } from "../../../support/hold-sqlite-lock.js";

// Every test here has a real SQLite file whose write lock a second connection takes, as another process would.
let dir: string;
let file: string;
const opened: Db[] = [];
const locks: HeldLock[] = [];
let unhandled: ReturnType<typeof watchUnhandledRejections>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-locked-"));
  file = path.join(dir, "magis.db");
  unhandled = watchUnhandledRejections();
});

afterEach(() => {
  unhandled.stop();
  for (const lock of locks.splice(0)) lock.release();
  for (const db of opened.splice(0)) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The app's connection: as createServices sets it up. */
function appDb(): Db {
  const db = openDatabase(file);
  db.exec(`PRAGMA busy_timeout = ${APP_LOCK_WAIT_MS}`);
  opened.push(db);
  return db;
}

/** The job records on the app's connection, migrated (before any lock is taken). */
async function appJobs(): Promise<JobStore> {
  const store = new SqliteStore(appDb());
  await store.migrate();
  return store.jobs;
}

function lock(): HeldLock {
  const held = holdSqliteLock(file);
  locks.push(held);
  return held;
}

function job(delivery: string, issue = 1): NewJob {
  return { delivery, key: jobKey("octo", "demo", issue), kind: "resolve-issue", installationId: 7, owner: "octo", repo: "demo", number: issue, payload: {} };
}

function keptLog(): QueueLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (fields: object, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, info: keep, warn: keep, error: keep };
}

/** Job records wait this long for a lock in most tests here, instead of the app's ten minutes. */
const SHORT_JOB_WAIT = { totalMs: 300, firstPauseMs: 10, maxPauseMs: 50 };

function newQueue(store: JobStore, run: JobRunner, options: Partial<InProcessQueueOptions> = {}) {
  const log = keptLog();
  const queue = new InProcessQueue(store, run, { log, storeWaits: { ...DEFAULT_STORE_WAITS, job: SHORT_JOB_WAIT }, ...options });
  return { queue, log };
}

/** Waits (on timers, so the queue's retries run) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("InProcessQueue with the job store locked by another connection", () => {
  it("answers a submission it cannot record with JobStoreBusyError within about a second, without stalling the event loop, and records it once the lock is gone", async () => {
    const store = await appJobs();
    const { queue } = newQueue(store, async () => ({ status: "succeeded", detail: "done" }));
    const held = lock();
    const { result, stallMs } = await longestStall(() => queue.submit(job("d-locked"), "decline").catch((error: unknown) => error));
    console.log(`longest event-loop stall during a submission against a locked store: ${stallMs} ms`);
    expect(result).toBeInstanceOf(JobStoreBusyError);
    expect(result).toMatchObject({ status: 503, message: expect.stringContaining("redeliver it") });
    held.release();
    expect(await store.withStatus("queued")).toEqual([]);
    expect(await queue.submit(job("d-locked"), "decline")).toMatchObject({ status: "queued" });
    await queue.drain();
    expect(await store.withStatus("succeeded")).toHaveLength(1);
    expect(unhandled.rejections).toEqual([]);
  });

  it("fails a job it cannot record as started, logs that its failure could not be recorded, frees its issue and keeps going", async () => {
    const store = await appJobs();
    const failed: string[] = [];
    const ran: string[] = [];
    const { queue, log } = newQueue(store, async (j) => (ran.push(j.delivery), { status: "succeeded", detail: "done" }), {
      onFailed: (_j, error) => void failed.push(String(error)),
    });
    const first = await queue.submit(job("a"), "decline");
    // Locked before the job's turn comes (the queue starts it on a later turn of the event loop).
    const held = lock();
    await queue.drain();
    expect(ran).toEqual([]);
    expect(failed).toEqual([expect.stringContaining("could not record the job as started")]);
    expect(log.lines.some((line) => line.startsWith("could not record job 1 as failed"))).toBe(true);
    held.release();
    // The issue is free: a later trigger is queued and runs, not declined.
    expect(await queue.submit(job("b"), "decline")).toMatchObject({ status: "queued", behind: false });
    await queue.drain();
    expect(ran).toEqual(["b"]);
    if (first.status !== "queued") throw new Error("expected queued");
    // The record of the first kept its last status; a restart marks it failed or runs it.
    expect((await store.get(first.job.id))!.status).toBe("queued");
    expect(unhandled.rejections).toEqual([]);
  });

  it("records a job's outcome once a lock taken while it ran is released, and logs the stage it could not record", async () => {
    const store = await appJobs();
    let held: HeldLock | undefined;
    let finish: (detail: string) => void = () => {};
    const { queue, log } = newQueue(
      store,
      (_j, progress) =>
        new Promise((resolve) => {
          held = lock();
          progress.stage("locate");
          finish = (detail) => resolve({ status: "succeeded", detail });
        }),
      { storeWaits: { ...DEFAULT_STORE_WAITS, job: { totalMs: 60_000, firstPauseMs: 10, maxPauseMs: 50 } } },
    );
    const outcome = await queue.submit(job("c"), "decline");
    await until(() => held !== undefined);
    expect(log.lines.some((line) => line.startsWith("could not record that job 1 reached stage locate"))).toBe(true);
    finish("https://github.com/octo/demo/pull/9");
    await until(() => log.lines.some((line) => line.includes("retrying to record job 1 as succeeded")));
    held!.release();
    await queue.drain();
    if (outcome.status !== "queued") throw new Error("expected queued");
    expect(await store.get(outcome.job.id)).toMatchObject({ status: "succeeded", stage: "start", detail: "https://github.com/octo/demo/pull/9" });
    expect(unhandled.rejections).toEqual([]);
  });

  it("cancels nothing when the cancellation cannot be recorded, so a redelivery can, and the job meanwhile stays queued", async () => {
    const store = await appJobs();
    let release = () => {};
    const ran: string[] = [];
    const { queue } = newQueue(store, (j) => {
      ran.push(j.delivery);
      return new Promise((resolve) => (release = () => resolve({ status: "succeeded", detail: "done" })));
    });
    await queue.submit(job("running"), "wait");
    const waiting = await queue.submit(job("waiting"), "wait");
    await until(() => ran.length === 1);
    const held = lock();
    await expect(queue.cancel(jobKey("octo", "demo", 1), "the issue was closed")).rejects.toBeInstanceOf(JobStoreBusyError);
    held.release();
    if (waiting.status !== "queued") throw new Error("expected queued");
    expect((await store.get(waiting.job.id))!.status).toBe("queued");
    expect(await queue.cancel(jobKey("octo", "demo", 1), "the issue was closed")).toBe(2);
    release();
    await queue.drain();
    expect(ran).toEqual(["running"]);
    expect(await store.get(waiting.job.id)).toMatchObject({ status: "cancelled", detail: "the issue was closed" });
    expect(unhandled.rejections).toEqual([]);
  });

  it("on start, waits for the lock (saying so) to create its tables in a new file, then starts", async () => {
    // Another process made the file and holds its write lock; the tables do not exist yet.
    const held = lock();
    const store = new SqliteStore(appDb());
    const { queue, log } = newQueue(store.jobs, async () => ({ status: "succeeded", detail: "done" }));
    let started = false;
    // As the app starts: the migrations wait out the lock, then the queue starts.
    const starting = atStartUp(() => store.migrate(), store.where, log)
      .then(() => queue.start())
      .then(() => void (started = true));
    await until(() => log.lines.some((line) => line.startsWith("the job store is locked by another process")));
    expect(started).toBe(false);
    held.release();
    await starting;
    expect(log.lines.some((line) => line.startsWith("the job store is free again"))).toBe(true);
    expect(await queue.submit(job("e"), "decline")).toMatchObject({ status: "queued" });
    await queue.drain();
    expect(unhandled.rejections).toEqual([]);
  });

  it("on start, waits for the lock to mark a job an earlier process left running as failed", async () => {
    const earlier = await appJobs();
    const left = (await earlier.add(job("f")))!;
    await earlier.start(left.id, "code");
    const held = lock();
    const interrupted: JobRecord[] = [];
    const { queue, log } = newQueue(await appJobs(), async () => ({ status: "succeeded", detail: "done" }), {
      onInterrupted: async (j) => void interrupted.push(j),
    });
    const starting = queue.start();
    await until(() => log.lines.some((line) => line.startsWith("the job store is locked by another process")));
    expect(interrupted).toEqual([]);
    held.release();
    await starting;
    expect(interrupted).toEqual([expect.objectContaining({ id: left.id, status: "failed", stage: "code", detail: INTERRUPTED_REASON })]);
    expect(unhandled.rejections).toEqual([]);
  });
});
