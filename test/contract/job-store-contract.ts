import { describe, expect, it } from "vitest";
import type { NewJob } from "../../src/store/jobs.js";
import { START, type ContractContext } from "./contract-context.js";

function newJob(delivery: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    delivery,
    key: "octo/widgets#7",
    kind: "resolve-issue",
    installationId: 4_200_000_001,
    owner: "octo",
    repo: "widgets",
    number: 7,
    payload: { config: { label: "magis", topK: 10 }, guidance: "Fix the “parser” 🚀", sender: "mona" },
    ...overrides,
  };
}

/** The contract of the job records (JobStore). */
export function describeJobContract(context: ContractContext): void {
  const store = context.store;
  describe("jobs", () => {
    it("records a queued job and gives it back whole", async () => {
      const job = newJob("d-1");
      const added = await store().jobs.add(job);
      expect(added).toEqual({
        ...job,
        id: expect.any(Number),
        status: "queued",
        stage: null,
        detail: null,
        worker: null,
        startedAt: null,
        createdAt: START,
        updatedAt: START,
      });
      expect(await store().jobs.get(added!.id)).toEqual(added);
      expect(await store().jobs.seen("d-1")).toBe(true);
      expect(await store().jobs.seen("d-2")).toBe(false);
      expect(await store().jobs.get(added!.id + 1000)).toBeNull();
    });

    it("records a redelivery never: add gives null and the first job stays as it was", async () => {
      const first = await store().jobs.add(newJob("d-1"));
      expect(await store().jobs.add(newJob("d-1", { payload: { other: true } }), "declined", "busy")).toBeNull();
      expect(await store().jobs.withStatus("queued")).toEqual([first]);
      expect(await store().jobs.withStatus("declined")).toEqual([]);
    });

    it("records a declined job with why", async () => {
      const declined = await store().jobs.add(newJob("d-1"), "declined", "Another run of this issue is in progress.");
      expect(declined).toMatchObject({ status: "declined", detail: "Another run of this issue is in progress." });
      expect(await store().jobs.withStatus("declined")).toEqual([declined]);
    });

    it("gives the newest job, and null when there is none", async () => {
      expect(await store().jobs.newest()).toBeNull();
      await store().jobs.add(newJob("d-1"));
      const second = await store().jobs.add(newJob("d-2", { key: "octo/widgets#8", number: 8 }));
      expect(await store().jobs.newest()).toEqual(second);
    });

    it("gives the newest job of a key, kind and status: the run a pull request came from", async () => {
      const { jobs } = store();
      const older = (await jobs.add(newJob("d-1")))!;
      await jobs.succeed(older.id, "https://github.com/octo/widgets/pull/9");
      const newer = (await jobs.add(newJob("d-2")))!;
      await jobs.succeed(newer.id, "https://github.com/octo/widgets/pull/9");
      const failed = (await jobs.add(newJob("d-3")))!;
      await jobs.fail(failed.id, "the model failed");
      await jobs.add(newJob("d-4", { key: "octo/widgets#8", number: 8 }));
      const key = newer.key;
      expect((await jobs.newest({ key, kind: newer.kind, status: "succeeded" }))?.id).toBe(newer.id);
      expect((await jobs.newest({ key, kind: newer.kind, status: "failed" }))?.id).toBe(failed.id);
      expect(await jobs.newest({ key, kind: "revise-pull-request", status: "succeeded" })).toBeNull();
    });

    it("lists the jobs of a status oldest first", async () => {
      const ids: number[] = [];
      for (const delivery of ["d-1", "d-2", "d-3", "d-4"]) ids.push((await store().jobs.add(newJob(delivery)))!.id);
      await store().jobs.start(ids[1]!, "locate");
      expect((await store().jobs.withStatus("queued")).map((job) => job.id)).toEqual([ids[0], ids[2], ids[3]]);
      expect((await store().jobs.withStatus("running")).map((job) => job.id)).toEqual([ids[1]]);
      expect(await store().jobs.withStatus("succeeded")).toEqual([]);
    });

    it("starts a job in its first stage on a worker, or on none", async () => {
      const a = (await store().jobs.add(newJob("d-1"), "declined", "busy"))!;
      const b = (await store().jobs.add(newJob("d-2")))!;
      context.advance(5000);
      await store().jobs.start(a.id, "locate", "worker-2:pid-41");
      await store().jobs.start(b.id, "locate");
      expect(await store().jobs.get(a.id)).toMatchObject({
        status: "running",
        stage: "locate",
        worker: "worker-2:pid-41",
        detail: null,
        createdAt: START,
        startedAt: START + 5000,
        updatedAt: START + 5000,
      });
      expect(await store().jobs.get(b.id)).toMatchObject({ status: "running", stage: "locate", worker: null });
      expect((await store().jobs.add(newJob("d-3")))!.startedAt).toBeNull();
    });

    it("moves the stage of a running job only", async () => {
      const queued = (await store().jobs.add(newJob("d-1")))!;
      const running = (await store().jobs.add(newJob("d-2")))!;
      await store().jobs.start(running.id, "locate");
      context.advance(1000);
      await store().jobs.setStage(queued.id, "plan");
      await store().jobs.setStage(running.id, "plan");
      expect(await store().jobs.get(queued.id)).toMatchObject({ status: "queued", stage: null, updatedAt: START });
      expect(await store().jobs.get(running.id)).toMatchObject({ status: "running", stage: "plan", updatedAt: START + 1000 });
      await store().jobs.succeed(running.id, "https://github.com/octo/widgets/pull/9");
      await store().jobs.setStage(running.id, "code");
      expect(await store().jobs.get(running.id)).toMatchObject({ status: "succeeded", stage: "plan" });
    });

    it("marks a job succeeded with what it produced", async () => {
      const job = (await store().jobs.add(newJob("d-1")))!;
      await store().jobs.start(job.id, "locate", "w1");
      context.advance(60_000);
      await store().jobs.succeed(job.id, "https://github.com/octo/widgets/pull/9");
      expect(await store().jobs.get(job.id)).toMatchObject({
        status: "succeeded",
        detail: "https://github.com/octo/widgets/pull/9",
        worker: "w1",
        updatedAt: START + 60_000,
      });
      expect(await store().jobs.withStatus("succeeded")).toHaveLength(1);
    });

    it("marks a job failed in the stage it was in, or in the stage given", async () => {
      const kept = (await store().jobs.add(newJob("d-1")))!;
      const given = (await store().jobs.add(newJob("d-2")))!;
      await store().jobs.start(kept.id, "code");
      await store().jobs.start(given.id, "code");
      context.advance(10);
      await store().jobs.fail(kept.id, "The model did not answer.");
      await store().jobs.fail(given.id, "The config is broken.", "config");
      expect(await store().jobs.get(kept.id)).toMatchObject({ status: "failed", stage: "code", detail: "The model did not answer.", updatedAt: START + 10 });
      expect(await store().jobs.get(given.id)).toMatchObject({ status: "failed", stage: "config", detail: "The config is broken." });
    });

    it("cancels every job it is given, with why, and no other", async () => {
      const ids: number[] = [];
      for (const delivery of ["d-1", "d-2", "d-3"]) ids.push((await store().jobs.add(newJob(delivery)))!.id);
      await store().jobs.start(ids[1]!, "plan");
      context.advance(7);
      await store().jobs.cancel([ids[0]!, ids[1]!], "The issue was closed.");
      expect(await store().jobs.get(ids[0]!)).toMatchObject({ status: "cancelled", detail: "The issue was closed.", stage: null, updatedAt: START + 7 });
      expect(await store().jobs.get(ids[1]!)).toMatchObject({ status: "cancelled", detail: "The issue was closed.", stage: "plan" });
      expect(await store().jobs.get(ids[2]!)).toMatchObject({ status: "queued", detail: null, updatedAt: START });
      await store().jobs.cancel([], "nothing");
      expect((await store().jobs.withStatus("cancelled")).map((job) => job.id)).toEqual([ids[0], ids[1]]);
    });
  });
}
