import { StageError } from "../../../../src/pipeline/errors.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dispatchByKind } from "../../../../src/jobs/dispatch-by-kind.js";
import { InProcessQueue, INTERRUPTED_REASON, type InProcessQueueOptions, type QueueLog } from "../../../../src/backends/sqlite/sqlite-queue.js";
import type { JobRunner } from "../../../../src/jobs/job-queue.js";
import { jobKey, type JobRecord, type NewJob } from "../../../../src/store/jobs.js";
import { openSqliteStore } from "../../../../src/backends/sqlite/sqlite-store.js";
import type { JobStore } from "../../../../src/store/store.js";

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The job records of a migrated SQLite file, closed after the test. */
async function openJobs(file: string = dbFile()): Promise<JobStore> {
  const store = openSqliteStore(file);
  closers.push(() => store.close());
  await store.migrate();
  return store.jobs;
}

function dbFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-jobs-"));
  dirs.push(dir);
  return path.join(dir, "magis.db");
}

function job(delivery: string, issue = 1): NewJob {
  return {
    delivery,
    key: jobKey("Octo", "Demo", issue),
    kind: "resolve-issue",
    installationId: 7,
    owner: "octo",
    repo: "demo",
    number: issue,
    payload: { guidance: "" },
  };
}

/** A runner whose jobs finish only when the test releases them. */
function gatedRunner() {
  const started: JobRecord[] = [];
  const gates = new Map<number, (outcome: Error | string) => void>();
  const run: JobRunner = (record, progress) =>
    new Promise((resolve, reject) => {
      started.push(record);
      progress.stage("clone");
      gates.set(record.id, (outcome) => (outcome instanceof Error ? reject(outcome) : resolve({ status: "succeeded", detail: outcome })));
    });
  const release = (id: number, outcome: Error | string) => gates.get(id)!(outcome);
  return { run, started, release };
}

/** A runner that works until its signal is aborted, then throws the signal's reason, as a real runner's LLM calls do. */
function abortableRunner() {
  const started: JobRecord[] = [];
  const run: JobRunner = (record, progress) =>
    new Promise((_resolve, reject) => {
      started.push(record);
      progress.stage("code");
      progress.signal.addEventListener("abort", () => reject(progress.signal.reason));
    });
  return { run, started };
}

/** A log that keeps its lines, so a test can read what an operator would. */
function keptLog(): QueueLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (fields: object, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, info: keep, warn: keep, error: keep };
}

function newQueue(store: JobStore, run: JobRunner, options: Partial<InProcessQueueOptions> = {}): InProcessQueue {
  return new InProcessQueue(store, run, { log: keptLog(), ...options });
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("InProcessQueue", () => {
  it("answers the submission before the job starts, then records running, stage and success", async () => {
    const store = await openJobs();
    const runner = gatedRunner();
    const queue = newQueue(store, runner.run);
    const outcome = await queue.submit(job("d1"), "decline");
    expect(outcome.status).toBe("queued");
    expect(runner.started).toHaveLength(0);
    const id = outcome.status === "queued" ? outcome.job.id : -1;
    expect((await store.get(id))!.status).toBe("queued");
    await tick();
    expect(await store.get(id)).toMatchObject({ status: "running", stage: "clone" });
    runner.release(id, "https://github.com/octo/demo/pull/2");
    await queue.drain();
    expect(await store.get(id)).toMatchObject({ status: "succeeded", detail: "https://github.com/octo/demo/pull/2" });
  });

  it("records a running job in stage 'start' until its runner names one", async () => {
    const store = await openJobs();
    let release = () => {};
    const queue = newQueue(store, () => new Promise((resolve) => (release = () => resolve({ status: "succeeded", detail: "done" }))));
    const outcome = await queue.submit(job("s1"), "decline");
    await tick();
    if (outcome.status !== "queued") throw new Error("expected queued");
    expect(await store.get(outcome.job.id)).toMatchObject({ status: "running", stage: "start" });
    release();
    await queue.drain();
  });

  it("ignores a redelivered webhook", async () => {
    const store = await openJobs();
    const runner = gatedRunner();
    const queue = newQueue(store, runner.run);
    await queue.submit(job("same"), "decline");
    expect(await queue.submit(job("same"), "decline")).toEqual({ status: "duplicate" });
    await tick();
    runner.release(runner.started[0]!.id, "ok");
    await queue.drain();
    expect(await queue.submit(job("same"), "wait")).toEqual({ status: "duplicate" });
    expect(runner.started).toHaveLength(1);
  });

  it("declines a second trigger for a busy issue but runs other issues alongside", async () => {
    const store = await openJobs();
    const runner = gatedRunner();
    const queue = newQueue(store, runner.run, { concurrency: 2 });
    await queue.submit(job("a", 1), "decline");
    const second = await queue.submit(job("b", 1), "decline");
    expect(second.status).toBe("busy");
    if (second.status === "busy") expect((await store.get(second.job.id))!.status).toBe("declined");
    await queue.submit(job("c", 2), "decline");
    await tick();
    expect(runner.started.map((j) => j.delivery)).toEqual(["a", "c"]);
    for (const started of runner.started) runner.release(started.id, "ok");
    await queue.drain();
  });

  it("queues a waiting job behind the running one with the same key, never beside it", async () => {
    const store = await openJobs();
    const runner = gatedRunner();
    const queue = newQueue(store, runner.run, { concurrency: 4 });
    expect(await queue.submit(job("first", 3), "wait")).toMatchObject({ status: "queued", behind: false });
    expect(await queue.submit(job("second", 3), "wait")).toMatchObject({ status: "queued", behind: true });
    await tick();
    expect(runner.started.map((j) => j.delivery)).toEqual(["first"]);
    runner.release(runner.started[0]!.id, new Error("model unavailable"));
    await tick();
    await tick();
    expect(runner.started.map((j) => j.delivery)).toEqual(["first", "second"]);
    expect(await store.get(runner.started[0]!.id)).toMatchObject({ status: "failed", detail: "model unavailable", stage: "clone" });
    runner.release(runner.started[1]!.id, "ok");
    await queue.drain();
  });

  it("records the stage a StageError names when a job fails", async () => {
    const store = await openJobs();
    const failing: JobRunner = async () => {
      throw new StageError("locate", "no file is relevant", "Comment `/magis retry` with guidance.");
    };
    const queue = newQueue(store, failing);
    const outcome = await queue.submit(job("x"), "decline");
    await queue.drain();
    if (outcome.status !== "queued") throw new Error("expected queued");
    expect(await store.get(outcome.job.id)).toMatchObject({ status: "failed", stage: "locate", detail: "no file is relevant" });
  });

  it("on start, fails the jobs a previous process left running and resumes the queued ones", async () => {
    const file = dbFile();
    const before = await openJobs(file);
    const interrupted = (await before.add(job("old-running", 4)))!;
    await before.start(interrupted.id, "code");
    const waiting = (await before.add(job("old-queued", 5)))!;

    const store = await openJobs(file);
    const runner = gatedRunner();
    const told: JobRecord[] = [];
    const queue = newQueue(store, runner.run, { onInterrupted: async (j) => void told.push(j) });
    await queue.start();
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ id: interrupted.id, status: "failed", stage: "code", detail: INTERRUPTED_REASON });
    await tick();
    expect(runner.started.map((j) => j.id)).toEqual([waiting.id]);
    runner.release(waiting.id, "ok");
    await queue.drain();
    expect((await store.get(waiting.id))!.status).toBe("succeeded");
  });
});

describe("InProcessQueue.cancel", () => {
  it("cancels a queued job, which then never runs, and answers a second trigger for the issue instead of declining it", async () => {
    const store = await openJobs();
    const gated = gatedRunner();
    const told: string[] = [];
    const queue = newQueue(store, gated.run, { onCancelled: (j, reason) => void told.push(`${j.delivery}: ${reason}`) });
    const first = await queue.submit(job("q1", 1), "wait");
    const second = await queue.submit(job("q2", 1), "wait");
    await tick();
    if (first.status !== "queued" || second.status !== "queued") throw new Error("expected both queued");
    expect(await queue.cancel(jobKey("octo", "demo", 1), "the issue was closed", "no-such-kind")).toBe(0);
    expect(await queue.cancel(jobKey("octo", "demo", 2), "the issue was closed")).toBe(0);
    gated.release(first.job.id, "done");
    await tick();
    // q2 is running now; cancel a third, queued behind it.
    const third = await queue.submit(job("q3", 1), "wait");
    if (third.status !== "queued") throw new Error("expected queued");
    expect(await queue.cancel(jobKey("octo", "demo", 1), "the issue was closed", "resolve-issue")).toBe(2);
    expect(await store.get(third.job.id)).toMatchObject({ status: "cancelled", detail: "the issue was closed" });
    expect(told).toEqual(["q3: the issue was closed"]);
    // The running one ignores its signal here and finishes with a PR: the PR exists, so the record says so.
    gated.release(second.job.id, "https://github.com/octo/demo/pull/3");
    await queue.drain();
    expect(await store.get(second.job.id)).toMatchObject({ status: "succeeded", detail: "https://github.com/octo/demo/pull/3" });
    expect(told).toEqual(["q3: the issue was closed"]);
    expect(gated.started.map((j) => j.delivery)).toEqual(["q1", "q2"]);
    expect(await queue.submit(job("q4", 1), "decline")).toMatchObject({ status: "queued", behind: false });
    await tick();
    gated.release(gated.started[2]!.id, "done");
    await queue.drain();
  });

  it("aborts a running job's signal with the reason, records it cancelled and not failed, and lets a new trigger wait behind it", async () => {
    const store = await openJobs();
    const runner = abortableRunner();
    const failed: unknown[] = [];
    const queue = newQueue(store, runner.run, { onFailed: (_j, error) => void failed.push(error) });
    const outcome = await queue.submit(job("r1", 5), "decline");
    await tick();
    if (outcome.status !== "queued") throw new Error("expected queued");
    expect(runner.started).toHaveLength(1);
    const cancelling = queue.cancel(jobKey("octo", "demo", 5), "the label was removed");
    // Submitted while the cancelled job winds down: not declined (busy ignores it), not run beside it.
    const next = await queue.submit(job("r2", 5), "decline");
    expect(await cancelling).toBe(1);
    expect(next).toMatchObject({ status: "queued", behind: false });
    await tick();
    await tick();
    expect(await store.get(outcome.job.id)).toMatchObject({ status: "cancelled", stage: "code", detail: "the label was removed" });
    expect(failed).toEqual([]);
    expect(runner.started.map((j) => j.delivery)).toEqual(["r1", "r2"]);
    expect(await queue.cancel(jobKey("octo", "demo", 5), "the time limit of 1 minute was reached")).toBe(1);
    expect(await queue.cancel(jobKey("octo", "demo", 5), "again")).toBe(0);
    await queue.drain();
    if (next.status !== "queued") throw new Error("expected queued");
    expect(await store.get(next.job.id)).toMatchObject({ status: "cancelled", detail: "the time limit of 1 minute was reached" });
  });
});

describe("InProcessQueue.stop", () => {
  it("starts nothing more, lets a running job finish within the grace period, and leaves queued jobs for the next start", async () => {
    const store = await openJobs();
    const runner = gatedRunner();
    const queue = newQueue(store, runner.run, { concurrency: 1 });
    const first = await queue.submit(job("s1", 1), "wait");
    const second = await queue.submit(job("s2", 2), "wait");
    await tick();
    const stopping = queue.stop(60_000);
    runner.release(runner.started[0]!.id, "https://github.com/octo/demo/pull/5");
    await stopping;
    if (first.status !== "queued" || second.status !== "queued") throw new Error("expected queued");
    expect(await store.get(first.job.id)).toMatchObject({ status: "succeeded" });
    expect(await store.get(second.job.id)).toMatchObject({ status: "queued" });
    expect(runner.started.map((j) => j.delivery)).toEqual(["s1"]);
  });

  it("stops a job still running when the grace period ends, recording why", async () => {
    const store = await openJobs();
    const runner = abortableRunner();
    const queue = newQueue(store, runner.run);
    const outcome = await queue.submit(job("s3"), "wait");
    await tick();
    await queue.stop(50);
    if (outcome.status !== "queued") throw new Error("expected queued");
    expect(await store.get(outcome.job.id)).toMatchObject({ status: "cancelled", detail: "the app was stopped (SIGTERM) before the run finished" });
  });
});

describe("dispatchByKind", () => {
  it("runs each job with the runner of its kind and fails jobs of an unknown kind", async () => {
    const store = await openJobs();
    const seen: string[] = [];
    const queue = newQueue(store, dispatchByKind({ "resolve-issue": async (j) => (seen.push(j.delivery), { status: "succeeded", detail: "done" }) }));
    const known = await queue.submit(job("k1"), "wait");
    const unknown = await queue.submit({ ...job("k2", 9), kind: "no-such-kind" }, "wait");
    await queue.drain();
    expect(seen).toEqual(["k1"]);
    if (known.status !== "queued" || unknown.status !== "queued") throw new Error("expected both queued");
    expect((await store.get(known.job.id))!.status).toBe("succeeded");
    expect(await store.get(unknown.job.id)).toMatchObject({ status: "failed", detail: expect.stringContaining("no runner for jobs of kind 'no-such-kind'") });
  });

  it("runs jobs with a concurrency below one (a bad MAGIS_JOBS_CONCURRENCY) one at a time instead of never", async () => {
    for (const concurrency of [0, -1, Number.NaN]) {
      const store = await openJobs();
      const gated = gatedRunner();
      const queue = newQueue(store, gated.run, { concurrency });
      await queue.submit(job(`a${concurrency}`, 1), "decline");
      await queue.submit(job(`b${concurrency}`, 2), "decline");
      await tick();
      expect(gated.started.map((j) => j.number)).toEqual([1]);
      gated.release(gated.started[0]!.id, "done");
      await tick();
      await tick();
      expect(gated.started.map((j) => j.number)).toEqual([1, 2]);
      gated.release(gated.started[1]!.id, "done");
      await queue.drain();
    }
  });
});
