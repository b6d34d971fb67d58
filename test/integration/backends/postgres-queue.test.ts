import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobRunner, QueueLog } from "../../../src/jobs/job-queue.js";
import { HANDED_BACK_REASON, LOST_REASON, PostgresQueue, UNRECORDED_REASON, type PostgresQueueOptions } from "../../../src/backends/postgres/postgres-queue.js";
import pg from "pg";
import { ADVISORY_LOCKS } from "../../../src/backends/postgres/advisory-locks.js";
import { jobKey, type JobRecord, type NewJob } from "../../../src/store/jobs.js";
import { openPostgresStore, type PostgresStore } from "../../../src/backends/postgres/postgres-store.js";
import { closeRelays, cuttableRelay } from "../../support/cuttable-relay.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

const queues: PostgresQueue[] = [];
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.stop(0);
  for (const store of stores.splice(0)) await store.close();
  await closeRelays();
});

/** A fresh, migrated database, and a way to open more stores on it (one per "process"). */
async function database(): Promise<() => Promise<PostgresStore>> {
  const url = await server.newDatabase();
  const open = async () => {
    const store = await openPostgresStore(url, { poolSize: 6 });
    stores.push(store);
    await store.migrate();
    return store;
  };
  return open;
}

function keptLog(): QueueLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (fields: object, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, info: keep, warn: keep, error: keep };
}

async function startQueue(store: PostgresStore, run: JobRunner, options: Partial<PostgresQueueOptions> = {}): Promise<PostgresQueue> {
  const queue = new PostgresQueue(store, run, { log: keptLog(), role: "all", concurrency: 2, heartbeatMs: 100, ...options });
  queues.push(queue);
  await queue.start();
  return queue;
}

function job(delivery: string, issue = 1): NewJob {
  return {
    delivery,
    key: jobKey("octo", "demo", issue),
    kind: "resolve-issue",
    installationId: 7,
    owner: "octo",
    repo: "demo",
    number: issue,
    payload: { n: delivery },
  };
}

/** A runner whose jobs finish only when the test releases them, keeping when each started and ended. */
function gatedRunner() {
  const spans: Array<{ delivery: string; start: number; end?: number }> = [];
  const gates = new Map<string, (outcome: Error | string) => void>();
  const run: JobRunner = (record, progress) =>
    new Promise((resolve, reject) => {
      const span: { delivery: string; start: number; end?: number } = { delivery: record.delivery, start: performance.now() };
      spans.push(span);
      const done = (outcome: Error | string) => {
        span.end = performance.now();
        if (outcome instanceof Error) reject(outcome);
        else resolve({ status: "succeeded", detail: outcome });
      };
      progress.signal.addEventListener("abort", () => done(progress.signal.reason as Error), { once: true });
      gates.set(record.delivery, done);
    });
  return { run, spans, release: (delivery: string, outcome: Error | string = `done ${delivery}`) => gates.get(delivery)!(outcome) };
}

/** Makes PostgreSQL fail the next `times` updates of a job record from status `from` to `to`, as a dropped connection or a failover would. */
async function failUpdates(store: PostgresStore, from: string, to: string, times = 1): Promise<void> {
  await store.pool.query(`
    CREATE SEQUENCE job_faults;
    CREATE FUNCTION fail_job_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('job_faults') <= ${times} THEN RAISE EXCEPTION 'the database failed this statement (a fault of the test)'; END IF;
        RETURN NEW;
      END $$;
    CREATE TRIGGER fail_job_update BEFORE UPDATE ON jobs FOR EACH ROW
      WHEN (OLD.status = '${from}' AND NEW.status = '${to}') EXECUTE FUNCTION fail_job_update();`);
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("the PostgreSQL queue", () => {
  it("runs the jobs of one issue one at a time in arrival order across two workers, and other issues beside them", async () => {
    const open = await database();
    const runner = gatedRunner();
    const a = await startQueue(await open(), runner.run);
    await startQueue(await open(), runner.run);
    for (const delivery of ["i1-a", "i1-b", "i1-c"]) expect(await a.submit(job(delivery, 1), "wait")).toMatchObject({ status: "queued" });
    expect(await a.submit(job("i2-a", 2), "wait")).toMatchObject({ status: "queued", behind: false });
    await until(() => runner.spans.length === 2, "two jobs to start");
    expect(runner.spans.map((s) => s.delivery).sort()).toEqual(["i1-a", "i2-a"]);
    for (const next of ["i1-a", "i1-b", "i1-c"]) {
      await until(() => runner.spans.some((s) => s.delivery === next), `${next} to start`);
      // Nothing else of issue 1 started while it runs.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(runner.spans.filter((s) => s.delivery.startsWith("i1-") && s.end === undefined).map((s) => s.delivery)).toEqual([next]);
      runner.release(next);
    }
    runner.release("i2-a");
    await a.drain();
    const store = stores[0]!;
    expect((await store.jobs.withStatus("succeeded")).map((j) => j.delivery).sort()).toEqual(["i1-a", "i1-b", "i1-c", "i2-a"]);
    expect(runner.spans.filter((s) => s.delivery.startsWith("i1-")).map((s) => s.delivery)).toEqual(["i1-a", "i1-b", "i1-c"]);
  });

  it("records a redelivery once, and declines a job whose issue is busy when asked to", async () => {
    const open = await database();
    const runner = gatedRunner();
    const web = await startQueue(await open(), runner.run, { role: "web" });
    expect(await web.submit(job("d1"), "decline")).toMatchObject({ status: "queued", behind: false });
    expect(await web.submit(job("d1"), "decline")).toEqual({ status: "duplicate" });
    const busy = await web.submit(job("d2"), "decline");
    expect(busy).toMatchObject({ status: "busy", job: { status: "declined", detail: "another job for this issue was queued or running" } });
    // A web process runs nothing: the job waits for a worker.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(runner.spans).toEqual([]);
    await startQueue(await open(), runner.run, { role: "worker" });
    await until(() => runner.spans.length === 1, "the worker to take the job");
    runner.release("d1");
    await web.drain();
  });

  it("cancels queued jobs at once and a running job through its worker", async () => {
    const open = await database();
    const runner = gatedRunner();
    const cancelled: string[] = [];
    const onCancelled = (j: JobRecord, reason: string) => void cancelled.push(`${j.delivery}: ${reason}`);
    const queue = await startQueue(await open(), runner.run, { onCancelled });
    const web = await startQueue(await open(), runner.run, { role: "web", onCancelled });
    await queue.submit(job("run"), "wait");
    await until(() => runner.spans.length === 1, "the first job to start");
    await queue.submit(job("wait"), "wait");
    // Cancelled from another process: the queued one at once, the running one by its worker at its next heartbeat.
    expect(await web.cancel(jobKey("octo", "demo", 1), "the issue was closed")).toBe(2);
    await queue.drain();
    const jobs = stores[0]!.jobs;
    expect(await jobs.withStatus("cancelled")).toEqual([
      expect.objectContaining({ delivery: "run", detail: "the issue was closed" }),
      expect.objectContaining({ delivery: "wait", detail: "the issue was closed" }),
    ]);
    expect(runner.spans.map((s) => s.delivery)).toEqual(["run"]);
    expect(cancelled.sort()).toEqual(["run: the issue was closed", "wait: the issue was closed"]);
  });

  it("hands a running job back when its worker stops, and another worker runs it before the later jobs of its issue", async () => {
    const open = await database();
    const first = gatedRunner();
    const leaving = await startQueue(await open(), first.run);
    await leaving.submit(job("long"), "wait");
    await until(() => first.spans.length === 1, "the job to start");
    await leaving.submit(job("later"), "wait");
    await leaving.stop(200);
    queues.splice(queues.indexOf(leaving), 1);
    const jobs = stores[0]!.jobs;
    expect(await jobs.get(1)).toMatchObject({ status: "queued", detail: HANDED_BACK_REASON, worker: null });
    const second = gatedRunner();
    await startQueue(await open(), second.run);
    await until(() => second.spans.length === 1, "the other worker to take it");
    expect(second.spans[0]!.delivery).toBe("long");
    second.release("long");
    await until(() => second.spans.length === 2, "the later job");
    second.release("later");
    await until(async () => (await jobs.withStatus("succeeded")).length === 2, "both to succeed");
  });

  it("fails the running jobs of a worker silent past lostAfterMs, says so, and frees its issue's line", async () => {
    const open = await database();
    const store = await open();
    const runner = gatedRunner();
    const lost: JobRecord[] = [];
    // A worker that took a job and then went silent (killed): its row and its job as it left them.
    await store.pool.query("INSERT INTO magis_workers (id, host, pid, lost_after_ms, started_at, seen_at) VALUES ('gone', 'h', 1, 1000, 0, 0)");
    const taken = (await store.jobs.add(job("taken")))!;
    await store.jobs.start(taken.id, "code", "gone");
    const queue = await startQueue(store, runner.run, { lostAfterMs: 1_000, onLost: async (j) => void lost.push(j) });
    await until(() => lost.length === 1, "the lost job to be reported");
    expect(lost[0]).toMatchObject({ delivery: "taken", status: "failed", stage: "code", detail: LOST_REASON });
    expect((await store.pool.query("SELECT id FROM magis_workers WHERE id = 'gone'")).rowCount).toBe(0);
    // The issue is free for the next job.
    await queue.submit(job("next"), "decline");
    await until(() => runner.spans.length === 1, "the next job");
    runner.release("next");
    await queue.drain();
  });
});

describe("the PostgreSQL queue, when one part fails", () => {
  it("keeps a worker alive while its jobs hold every connection of its pool (index-cache writes waiting for another process)", async () => {
    const url = await server.newDatabase();
    // Two jobs at once and the pool's one LISTEN connection: three connections, all of them held below.
    const busy = await openPostgresStore(url, { poolSize: 3 });
    stores.push(busy);
    await busy.migrate();
    const other = await openPostgresStore(url, { poolSize: 3 });
    stores.push(other);
    // Another process writing the index cache holds its lock for a while.
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    await writer.query("BEGIN");
    await writer.query("SELECT pg_advisory_xact_lock($1, $2)", [...ADVISORY_LOCKS.indexCache]);
    const started: string[] = [];
    const run: JobRunner = async (record) => {
      started.push(record.delivery);
      await busy.memory.index.writeTerms([[`blob-${record.delivery}`, "{}"]], []);
      return { status: "succeeded", detail: `done ${record.delivery}` };
    };
    const lost: string[] = [];
    const worker = await startQueue(busy, run, { lostAfterMs: 1_500 });
    await worker.submit(job("one", 1), "wait");
    await worker.submit(job("two", 2), "wait");
    await until(() => started.length === 2, "both jobs to start");
    await startQueue(other, gatedRunner().run, { lostAfterMs: 1_500, onLost: async (j) => void lost.push(j.delivery) });
    // Well past lostAfterMs: the busy worker is alive and says so.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await writer.query("COMMIT");
    await writer.end();
    await worker.drain();
    expect(lost).toEqual([]);
    expect((await busy.jobs.withStatus("succeeded")).map((j) => j.delivery)).toEqual(["one", "two"]);
  });

  it("stops the jobs of a worker cut off from the database before another worker takes it for lost and starts the next job of their issue", async () => {
    const url = await server.newDatabase();
    const relay = await cuttableRelay(url);
    const cutOff = await openPostgresStore(relay.url, { poolSize: 6 });
    stores.push(cutOff);
    await cutOff.migrate();
    const other = await openPostgresStore(url, { poolSize: 6 });
    stores.push(other);
    // Each job notes when it starts and when it is told to stop, and ends when the test says (a job takes a moment to stop).
    const events: string[] = [];
    const finish = new Map<string, () => void>();
    const run: JobRunner = (record, progress) =>
      new Promise((resolve) => {
        events.push(`start ${record.delivery}`);
        progress.signal.addEventListener("abort", () => events.push(`stop ${record.delivery}: ${(progress.signal.reason as Error).message}`));
        finish.set(record.delivery, () => resolve({ status: "succeeded", detail: `done ${record.delivery}` }));
      });
    const first = await startQueue(cutOff, run, { lostAfterMs: 1_500 });
    await first.submit(job("first"), "wait");
    await until(() => finish.has("first"), "the first job to start");
    const second = await startQueue(other, run, { lostAfterMs: 1_500 });
    await second.submit(job("second"), "wait");
    try {
      relay.cut();
      await until(() => finish.has("second"), "the other worker to take the issue's next job");
      relay.mend();
      expect(events).toEqual(["start first", expect.stringMatching(/^stop first: this worker could not reach the database for \d+ s/), "start second"]);
    } finally {
      relay.mend();
      for (const end of finish.values()) end();
    }
    await second.drain();
    expect(await other.jobs.get(1)).toMatchObject({ status: "failed", detail: LOST_REASON });
    expect(await other.jobs.get(2)).toMatchObject({ status: "succeeded" });
  });

  // With MAGIS_WORKER_LOST_SECONDS=20, an 8 s outage stopped every running job: the worker judged its silence before the
  // heartbeat that would have got through, and beat only every 5 s. Scaled down here: lost after 2 s, an 0.8 s outage.
  it("keeps a worker's jobs running through a database outage well short of lostAfterMs", async () => {
    const url = await server.newDatabase();
    const relay = await cuttableRelay(url);
    const store = await openPostgresStore(relay.url, { poolSize: 6 });
    stores.push(store);
    await store.migrate();
    const runner = gatedRunner();
    const queue = await startQueue(store, runner.run, { lostAfterMs: 2_000, heartbeatMs: undefined });
    await queue.submit(job("a", 1), "wait");
    await queue.submit(job("b", 2), "wait");
    await until(() => runner.spans.length === 2, "both jobs to start");
    relay.cut();
    await new Promise((resolve) => setTimeout(resolve, 800));
    relay.mend();
    // Past lostAfterMs from the cut: had the worker taken itself for cut off, its jobs would have been stopped by now.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(runner.spans.map((span) => span.end)).toEqual([undefined, undefined]);
    runner.release("a");
    runner.release("b");
    await until(async () => (await store.jobs.withStatus("succeeded")).length === 2, "both jobs to be recorded succeeded");
  });

  it("marks a job failed at its worker's next heartbeat when the worker could not record how it ended, so its issue takes new jobs", async () => {
    const store = await (await database())();
    await failUpdates(store, "running", "succeeded");
    const runner = gatedRunner();
    const log = keptLog();
    const queue = await startQueue(store, runner.run, { log });
    await queue.submit(job("a"), "decline");
    await until(() => runner.spans.length === 1, "the job to start");
    runner.release("a");
    await until(() => log.lines.some((line) => line.startsWith("could not record job 1 as succeeded")), "the failed write");
    await until(async () => (await store.jobs.get(1))!.status !== "running", "the record to leave running", 3_000);
    expect(await store.jobs.get(1)).toMatchObject({ status: "failed", detail: UNRECORDED_REASON });
    expect(await queue.submit(job("b"), "decline")).toMatchObject({ status: "queued", behind: false });
    await until(() => runner.spans.length === 2, "the next job");
    runner.release("b");
    await queue.drain();
  });

  it("runs a job whose claim the database failed once, still before the later jobs of its issue", async () => {
    const store = await (await database())();
    await failUpdates(store, "queued", "running");
    const runner = gatedRunner();
    const queue = await startQueue(store, runner.run);
    await queue.submit(job("a"), "wait");
    await queue.submit(job("b"), "wait");
    await until(() => runner.spans.length === 1, "a job to run");
    expect(runner.spans[0]!.delivery).toBe("a");
    runner.release("a");
    await until(() => runner.spans.length === 2, "the later job");
    runner.release("b");
    await queue.drain();
    expect((await store.jobs.withStatus("succeeded")).map((j) => j.delivery)).toEqual(["a", "b"]);
  });

  it("queues again a job whose claim the database kept failing, rather than leaving it queued for ever and its issue busy", async () => {
    const store = await (await database())();
    await failUpdates(store, "queued", "running", 3);
    const runner = gatedRunner();
    const queue = await startQueue(store, runner.run);
    await queue.submit(job("a"), "decline");
    await until(() => runner.spans.length === 1, "the job to run after all", 10_000);
    runner.release("a");
    await queue.drain();
    expect(await store.jobs.get(1)).toMatchObject({ status: "succeeded" });
    expect(runner.spans.map((span) => span.delivery)).toEqual(["a"]);
    // The entry graphile-worker gave up went with it.
    expect((await store.pool.query("SELECT id FROM graphile_worker.jobs")).rowCount).toBe(0);
    expect(await queue.submit(job("b"), "decline")).toMatchObject({ status: "queued", behind: false });
    await until(() => runner.spans.length === 2, "the next job");
    runner.release("b");
    await queue.drain();
  });

  it("records cancelled, not handed back, a job whose cancellation came while its worker was shutting down, and runs it nowhere again", async () => {
    const open = await database();
    const first = gatedRunner();
    // Its worker's next heartbeat, which would stop it as cancelled, does not come before the grace period ends.
    const leaving = await startQueue(await open(), first.run, { heartbeatMs: 60_000 });
    await leaving.submit(job("long"), "wait");
    await until(() => first.spans.length === 1, "the job to start");
    const web = await startQueue(await open(), first.run, { role: "web" });
    expect(await web.cancel(jobKey("octo", "demo", 1), "the issue was closed")).toBe(1);
    await leaving.stop(100);
    queues.splice(queues.indexOf(leaving), 1);
    const jobs = stores[0]!.jobs;
    expect(await jobs.get(1)).toMatchObject({ status: "cancelled", detail: "the issue was closed" });
    const second = gatedRunner();
    await startQueue(await open(), second.run);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(second.spans).toEqual([]);
  });

  it("judges each worker by its own MAGIS_WORKER_LOST_SECONDS, not by the judge's", async () => {
    const open = await database();
    const store = await open();
    // A worker allowed a minute of silence, last heard from 10 s ago, with a job running.
    await store.pool.query(
      "INSERT INTO magis_workers (id, host, pid, lost_after_ms, started_at, seen_at) VALUES ('patient', 'h', 1, 60000, 0, (extract(epoch from clock_timestamp()) * 1000)::bigint - 10000)",
    );
    const taken = (await store.jobs.add(job("taken")))!;
    await store.jobs.start(taken.id, "code", "patient");
    const lost: JobRecord[] = [];
    await startQueue(store, gatedRunner().run, { lostAfterMs: 1_000, heartbeatMs: 100, onLost: async (j) => void lost.push(j) });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(lost).toEqual([]);
    expect(await store.jobs.get(taken.id)).toMatchObject({ status: "running", worker: "patient" });
  });

  // A worker killed after graphile-worker locked a job for it, but before its task claimed the record: no record names
  // its pool, but its row in magis_workers does, so the lost-worker sweep frees the job and its issue's line (and
  // requeueStranded queues the job again) instead of graphile-worker's own release of stale locks, four hours later.
  it("runs a job whose worker was killed between taking it from graphile-worker and claiming it, within lostAfterMs", async () => {
    const open = await database();
    const store = await open();
    const web = await startQueue(store, gatedRunner().run, { role: "web" });
    await web.submit(job("a"), "wait");
    // As the killed worker left them: its row, silent; its pool holds the job and the issue's line; the record is still queued.
    await store.pool.query(
      "INSERT INTO magis_workers (id, host, pid, pool_id, lost_after_ms, started_at, seen_at) VALUES ('killed', 'h', 1, 'pool-of-a-killed-worker', 1000, 0, 0)",
    );
    await store.pool.query("UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'pool-of-a-killed-worker', attempts = attempts + 1");
    await store.pool.query("UPDATE graphile_worker._private_job_queues SET locked_at = now(), locked_by = 'pool-of-a-killed-worker'");
    const runner = gatedRunner();
    await startQueue(await open(), runner.run, { lostAfterMs: 1_000 });
    await until(() => runner.spans.length === 1, "the job to run", 5_000);
    runner.release("a");
  });
});
