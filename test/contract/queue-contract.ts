import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Backend, QueueOptions } from "../../src/backends/backend.js";
import type { JobOutcome } from "../../src/jobs/job-outcome.js";
import type { JobQueue, JobRunner } from "../../src/jobs/job-queue.js";
import { jobKey, type JobRecord, type NewJob } from "../../src/store/jobs.js";

/** A job of issue `issue` of octo/demo, delivered as `delivery`. */
function job(delivery: string, issue = 1): NewJob {
  return { delivery, key: jobKey("octo", "demo", issue), kind: "resolve-issue", installationId: 7, owner: "octo", repo: "demo", number: issue, payload: {} };
}

/** Waits on timers until `condition` holds, failing after `ms`, naming what it waited for. */
async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A runner whose jobs run until the test ends them (with an outcome, an error, or by aborting their signal). */
function gatedRunner() {
  const running = new Map<string, { signal: AbortSignal; end: (outcome: JobOutcome | Error) => void }>();
  const started: string[] = [];
  const run: JobRunner = (record, progress) =>
    new Promise((resolve, reject) => {
      started.push(record.delivery);
      progress.stage("clone");
      const end = (outcome: JobOutcome | Error) => {
        running.delete(record.delivery);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      progress.signal.addEventListener("abort", () => end(progress.signal.reason as Error), { once: true });
      running.set(record.delivery, { signal: progress.signal, end });
    });
  return { run, started, running };
}

/**
 * The behaviour every backend's job queue keeps (src/jobs/job-queue.ts), run against one backend. `open` gives a fresh,
 * empty backend for each test; the contract migrates it, makes its queue in role `all` and stops it after the test.
 */
export function describeQueueContract(label: string, open: () => Promise<Backend>): void {
  describe(`the ${label} backend's job queue`, () => {
    let backend: Backend | undefined;
    let queue: JobQueue | undefined;
    const told: { cancelled: string[]; failed: string[] } = { cancelled: [], failed: [] };
    const log = { info: () => {}, warn: () => {}, error: () => {} };

    beforeEach(async () => {
      told.cancelled = [];
      told.failed = [];
      backend = await open();
      await backend.migrate(log);
    });
    afterEach(async () => {
      await queue?.stop(0);
      queue = undefined;
      await backend?.close();
      backend = undefined;
    });

    /** The backend's queue running `runner`, started. */
    async function startQueue(runner: JobRunner, options: Partial<QueueOptions> = {}): Promise<JobQueue> {
      queue = backend!.createQueue(runner, {
        log,
        role: "all",
        concurrency: 2,
        lostAfterMs: 60_000,
        onAbandoned: async () => {},
        onCancelled: (record, reason) => void told.cancelled.push(`${record.delivery}: ${reason}`),
        onFailed: (record, reason) => void told.failed.push(`${record.delivery}: ${reason}`),
        ...options,
      });
      await queue.start();
      return queue;
    }

    const record = async (id: number): Promise<JobRecord | null> => backend!.store.jobs.get(id);
    const statusOf = async (id: number) => (await record(id))?.status;

    it("runs a submitted job and records it succeeded with what its runner returned", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      const submitted = await jobs.submit(job("a"), "decline");
      if (submitted.status !== "queued") throw new Error(`expected queued, got ${submitted.status}`);
      expect(submitted.behind).toBe(false);
      await until(() => runner.running.has("a"), "the job to start");
      expect(await record(submitted.job.id)).toMatchObject({ status: "running", stage: "clone" });
      runner.running.get("a")!.end({ status: "succeeded", detail: "https://github.com/octo/demo/pull/2" });
      await jobs.drain();
      expect(await record(submitted.job.id)).toMatchObject({ status: "succeeded", detail: "https://github.com/octo/demo/pull/2" });
    });

    it("records a second submission of one delivery once: the redelivery is a duplicate", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      expect((await jobs.submit(job("dup"), "wait")).status).toBe("queued");
      expect(await jobs.submit(job("dup"), "wait")).toEqual({ status: "duplicate" });
      await until(() => runner.running.has("dup"), "the job to start");
      runner.running.get("dup")!.end({ status: "succeeded", detail: "done" });
      await jobs.drain();
      expect(runner.started).toEqual(["dup"]);
    });

    it("declines a job whose issue is busy when asked to, and queues one behind it when asked to wait, never running them together", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      const first = await jobs.submit(job("first", 3), "decline");
      await until(() => runner.running.has("first"), "the first job to start");
      const declined = await jobs.submit(job("declined", 3), "decline");
      if (declined.status !== "busy") throw new Error(`expected busy, got ${declined.status}`);
      expect(await record(declined.job.id)).toMatchObject({ status: "declined" });
      const waiting = await jobs.submit(job("waiting", 3), "wait");
      expect(waiting).toMatchObject({ status: "queued", behind: true });
      // Another issue's job runs beside the first.
      await jobs.submit(job("other", 4), "decline");
      await until(() => runner.running.has("other"), "the other issue's job to start");
      expect(runner.running.has("waiting")).toBe(false);
      runner.running.get("first")!.end({ status: "succeeded", detail: "done" });
      await until(() => runner.running.has("waiting"), "the waiting job to start after the first");
      runner.running.get("waiting")!.end({ status: "succeeded", detail: "done" });
      runner.running.get("other")!.end({ status: "succeeded", detail: "done" });
      await jobs.drain();
      if (first.status !== "queued" || waiting.status !== "queued") throw new Error("expected both queued");
      expect(await statusOf(first.job.id)).toBe("succeeded");
      expect(await statusOf(waiting.job.id)).toBe("succeeded");
      expect(runner.started).not.toContain("declined");
    });

    it("records a run's failure with its stage and reason, and a runner that throws as failed with the error's message", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      const failed = await jobs.submit(job("failed", 5), "decline");
      const threw = await jobs.submit(job("threw", 6), "decline");
      await until(() => runner.running.has("failed") && runner.running.has("threw"), "both jobs to start");
      runner.running.get("failed")!.end({ status: "failed", detail: "The model was unreachable. Comment `/magis retry`.", stage: "locate" });
      runner.running.get("threw")!.end(new Error("the runner broke"));
      await jobs.drain();
      if (failed.status !== "queued" || threw.status !== "queued") throw new Error("expected both queued");
      expect(await record(failed.job.id)).toMatchObject({ status: "failed", stage: "locate", detail: "The model was unreachable. Comment `/magis retry`." });
      expect(await record(threw.job.id)).toMatchObject({ status: "failed", detail: "the runner broke" });
      expect(told.failed.sort()).toEqual(["failed: The model was unreachable. Comment `/magis retry`.", "threw: the runner broke"]);
    });

    it("cancels an issue's queued job (it never runs) and aborts its running one with the reason, recording both cancelled", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      const running = await jobs.submit(job("running", 8), "wait");
      await until(() => runner.running.has("running"), "the job to start");
      const queued = await jobs.submit(job("queued", 8), "wait");
      const signal = runner.running.get("running")!.signal;
      expect(await jobs.cancel(jobKey("octo", "demo", 8), "@alice closed the issue")).toBe(2);
      await until(() => signal.aborted, "the running job's signal to be aborted");
      expect((signal.reason as Error).message).toBe("@alice closed the issue");
      await jobs.drain();
      if (running.status !== "queued" || queued.status !== "queued") throw new Error("expected both queued");
      expect(await record(running.job.id)).toMatchObject({ status: "cancelled", detail: "@alice closed the issue" });
      expect(await record(queued.job.id)).toMatchObject({ status: "cancelled", detail: "@alice closed the issue" });
      expect(runner.started).toEqual(["running"]);
      expect(told.cancelled.sort()).toEqual(["queued: @alice closed the issue", "running: @alice closed the issue"]);
    });

    it("cancels only the jobs of the kind it names, and says how many it cancelled", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run);
      const revision = await jobs.submit({ ...job("revision", 9), kind: "revise-pull-request" }, "wait");
      await until(() => runner.running.has("revision"), "the revision to start");
      expect(await jobs.cancel(jobKey("octo", "demo", 9), "the label was removed", "resolve-issue")).toBe(0);
      expect(runner.running.get("revision")!.signal.aborted).toBe(false);
      runner.running.get("revision")!.end({ status: "succeeded", detail: "revised" });
      await jobs.drain();
      if (revision.status !== "queued") throw new Error("expected queued");
      expect(await statusOf(revision.job.id)).toBe("succeeded");
    });

    it("counts queued and running jobs by kind, and drains to none", async () => {
      const runner = gatedRunner();
      const jobs = await startQueue(runner.run, { concurrency: 1 });
      await jobs.submit(job("one", 10), "wait");
      await jobs.submit(job("two", 11), "wait");
      await until(() => runner.running.size === 1, "one job to start");
      expect(await backend!.store.jobs.depth()).toEqual(
        expect.arrayContaining([
          { kind: "resolve-issue", status: "running", count: 1 },
          { kind: "resolve-issue", status: "queued", count: 1 },
        ]),
      );
      for (const delivery of ["one", "two"]) {
        await until(() => runner.running.has(delivery), `${delivery} to start`);
        runner.running.get(delivery)!.end({ status: "succeeded", detail: "done" });
      }
      await jobs.drain();
      expect(await backend!.store.jobs.depth()).toEqual([]);
    });
  });
}
