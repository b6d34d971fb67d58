import crypto from "node:crypto";
import { EventEmitter } from "node:events";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { Logger, run, runMigrations, type Runner, type Task, type WorkerEvents } from "graphile-worker";
import type pg from "pg";
import type { JobRecord, NewJob } from "../../store/jobs.js";
import { inTransaction } from "./in-transaction.js";
import type { PostgresStore } from "./postgres-store.js";
import { type JobQueue, type JobRunner, type SubmitOutcome, type WhenBusy } from "../../jobs/job-queue.js";
import { JobLifecycle, logged, type LifecycleOptions } from "../../jobs/job-lifecycle.js";
import { HandBack } from "../../jobs/job-outcome.js";
import { DB_NOW, enqueue, jobKeyOf, lockKey, TASK } from "./postgres-queue-entries.js";
import { failJobsOfLostWorkers, LOST_REASON, requeueStranded } from "./postgres-sweeps.js";

/** How often a task tries to claim its job when the database fails the statement, and the pause before each retry. */
const CLAIM_TRIES = 3;
const CLAIM_PAUSE_MS = 500;

export { LOST_REASON } from "./postgres-sweeps.js";

/** The reason recorded for a job whose worker could not record how it ended; its status comment on the issue says it. */
export const UNRECORDED_REASON =
  "the worker that ran it could not record how the run ended (the database failed the write or could not be reached); its status comment on the issue says how it ended";

/** The reason a job is stopped with when its worker shuts down before it finished: it runs again on another worker. */
export const HANDED_BACK_REASON = "the worker running it is shutting down; the run was handed back and starts again from the beginning on another worker";

/** Options of the PostgreSQL queue. */
export interface PostgresQueueOptions extends LifecycleOptions {
  /** `web` only records and enqueues; `worker` only runs; `all` both. */
  role: "web" | "worker" | "all";
  /** Most jobs this process runs at once (a job holds a whole clone in memory). */
  concurrency?: number;
  /** A worker not heard from for this long is taken for lost, and its running jobs are failed (default 60 s). */
  lostAfterMs?: number;
  /**
   * How often a worker says it is alive, looks for lost workers and for cancellations of its jobs (default: an eighth
   * of lostAfterMs, at most 5 s). A worker whose heartbeats have not got through for lostAfterMs less two of these
   * stops its own jobs, before another worker can take it for lost; an outage shorter than lostAfterMs less three of
   * them stops none (with lostAfterMs 20 s: one of 12.5 s).
   */
  heartbeatMs?: number;
  /** Told about each job failed because its worker was lost, after its record says so. */
  onLost?: (job: JobRecord) => Promise<void>;
}

interface RunningJob {
  job: JobRecord;
  controller: AbortController;
  /** When graphile-worker's copy of the job was due: a job handed back keeps its place in its issue's line. */
  runAt: Date;
}

/**
 * The job queue on PostgreSQL, shared by any number of `web` and `worker` processes on any machines. The job records
 * stay in the store's `jobs` table; graphile-worker carries which job runs next. Each job goes into the named queue
 * of its key (its issue), which graphile-worker runs one at a time, in order: no two jobs of one issue overlap. A job
 * is recorded and enqueued in one transaction, so a webhook's job is never recorded without being queued or queued
 * without a record. Workers write a heartbeat; any worker fails the running jobs of a worker silent for
 * `lostAfterMs` and releases their issues' lines.
 */
export class PostgresQueue implements JobQueue {
  readonly workerId = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
  private readonly running = new Map<number, RunningJob>();
  /** Jobs this process's tasks hold, from before their claim until their outcome is written (see failUnheldJobs). */
  private readonly held = new Set<number>();
  private readonly lifecycle: JobLifecycle;
  private runner: Runner | null = null;
  /** The heartbeat's own connection: a worker whose jobs hold every connection of the store's pool still says it is alive. */
  private beatPool: pg.Pool | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** When the last heartbeat that got through was sent (performance.now()). */
  private lastBeatAt = 0;
  private beating: Promise<void> = Promise.resolve();
  private beatInFlight = false;
  private stopping = false;

  private readonly pool: pg.Pool;

  constructor(
    private readonly store: PostgresStore,
    run: JobRunner,
    private readonly options: PostgresQueueOptions,
  ) {
    this.pool = store.pool;
    this.lifecycle = new JobLifecycle(store.jobs, run, options, { worker: this.workerId });
  }

  private get lostAfterMs(): number {
    return this.options.lostAfterMs ?? 60_000;
  }

  private get heartbeatMs(): number {
    return this.options.heartbeatMs ?? Math.min(5_000, this.lostAfterMs / 8);
  }

  async submit(job: NewJob, whenBusy: WhenBusy): Promise<SubmitOutcome> {
    return inTransaction(this.pool, async (client): Promise<SubmitOutcome> => {
      await lockKey(client, job.key);
      const busy = await client.query("SELECT 1 FROM jobs WHERE key = $1 AND status IN ('queued', 'running') AND cancel_reason IS NULL LIMIT 1", [job.key]);
      const behind = busy.rowCount! > 0;
      if (whenBusy === "decline" && behind) {
        const declined = await this.store.jobs.add(job, "declined", "another job for this issue was queued or running", client);
        return declined ? { status: "busy", job: declined } : { status: "duplicate" };
      }
      const queued = await this.store.jobs.add(job, "queued", null, client);
      if (!queued) return { status: "duplicate" };
      // Due when its trigger arrived, not when its decision ended: of two triggers of one issue that web processes
      // decided at once, the earlier runs first. (A job without a trigger of its own record, a CI fix, is due now.)
      const arrived = await client.query<{ at: Date }>("SELECT to_timestamp(received_at / 1000.0) AS at FROM triggers WHERE delivery = $1", [job.delivery]);
      await enqueue(client, queued.id, job.key, arrived.rows[0]?.at ?? null);
      return { status: "queued", job: queued, behind };
    });
  }

  async start(): Promise<void> {
    await runMigrations({ pgPool: this.pool, logger: quietLogger(this.options.log) });
    if (this.options.role === "web") return;
    this.beatPool = this.store.separatePool(1);
    await this.register();
    this.heartbeat = setInterval(() => {
      // A beat still under way (the database slow to answer) is not waited on: the silence so far is judged now.
      if (this.beatInFlight) return this.stopJobsIfCutOff();
      // Otherwise the beat comes first, and the silence is judged after it: a database back from a short outage answers
      // this beat, and the worker keeps its jobs (judged before, an 8 s outage stopped every job of a 20 s worker).
      this.beatInFlight = true;
      this.beating = this.beat()
        .catch((error: unknown) => this.options.log.warn({ worker: this.workerId, error: logged(error) }, "the worker's heartbeat failed; retrying"))
        .finally(() => {
          this.beatInFlight = false;
          this.stopJobsIfCutOff();
        });
    }, this.heartbeatMs);
    // graphile-worker's pool locks the jobs it takes under its id: recorded with this worker, a lost worker's jobs are
    // freed even when it was killed after taking one and before claiming it.
    const events = new EventEmitter() as WorkerEvents;
    let recordingPool: Promise<unknown> = Promise.resolve();
    events.on("pool:create", ({ workerPool }) => {
      recordingPool = this.beatPool!.query("UPDATE magis_workers SET pool_id = $2 WHERE id = $1", [this.workerId, workerPool.id]);
    });
    try {
      this.runner = await run({
        pgPool: this.pool,
        events,
        concurrency: Math.max(1, Math.floor(this.options.concurrency ?? 2) || 1),
        noHandleSignals: true,
        pollInterval: 1_000,
        logger: quietLogger(this.options.log),
        taskList: { [TASK]: this.task },
      });
      await recordingPool;
    } catch (error) {
      // Not started: nothing of it may keep the process alive or leave a row that others would take for a lost worker.
      await this.stop(0);
      throw error;
    }
  }

  async drain(): Promise<void> {
    for (;;) {
      const { rows } = await this.pool.query<{ n: string }>("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')");
      if (Number(rows[0]!.n) === 0 && this.running.size === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async cancel(key: string, reason: string, kind?: string): Promise<number> {
    const { queued, running } = await inTransaction(this.pool, async (client) => {
      await lockKey(client, key);
      const now = Date.now();
      const cancelled = await client.query<{ id: string }>(
        "UPDATE jobs SET status = 'cancelled', detail = $2, updated_at = $3 WHERE key = $1 AND status = 'queued' AND ($4::text IS NULL OR kind = $4) RETURNING id",
        [key, reason, now, kind ?? null],
      );
      // Their queue entries go too; one a worker took meanwhile finds its record cancelled and ends at once.
      for (const row of cancelled.rows) await client.query("SELECT graphile_worker.remove_job($1)", [jobKeyOf(Number(row.id))]);
      // A running job is stopped by its worker, which looks for this at its next heartbeat.
      const flagged = await client.query(
        "UPDATE jobs SET cancel_reason = $2, updated_at = $3 WHERE key = $1 AND status = 'running' AND cancel_reason IS NULL AND ($4::text IS NULL OR kind = $4) RETURNING id",
        [key, reason, now, kind ?? null],
      );
      return { queued: cancelled.rows.map((row) => Number(row.id)), running: flagged.rowCount ?? 0 };
    });
    for (const id of queued) {
      const job = (await this.store.jobs.get(id))!;
      await this.lifecycle.tell("onCancelled", job, () => this.options.onCancelled?.(job, reason));
    }
    // One of this process's own jobs stops now rather than at the next heartbeat.
    await this.abortCancelled(this.pool);
    return queued.length + running;
  }

  /**
   * Stops taking jobs; running ones may finish within `graceMs`, then they are handed back: each is queued again at its
   * place in its issue's line (another worker runs it from the start) and its record says so. Resolves once none runs.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const runner = this.runner;
    const grace = setTimeout(() => {
      for (const entry of this.running.values()) entry.controller.abort(new HandBack(HANDED_BACK_REASON));
    }, graceMs);
    try {
      if (runner) await runner.stop();
    } finally {
      clearTimeout(grace);
      if (this.heartbeat) clearInterval(this.heartbeat);
      await this.beating;
      if (this.beatPool) await this.beatPool.query("DELETE FROM magis_workers WHERE id = $1", [this.workerId]).finally(() => this.beatPool!.end());
    }
  }

  /** graphile-worker's handler: runs the job whose id the payload names, unless its record says it is not queued. */
  private readonly task: Task = async (payload, helpers) => {
    const id = Number((payload as { id?: unknown }).id);
    this.held.add(id);
    try {
      // Cancelled, failed as lost, or finished already: nothing to run.
      if (!(await this.claim(id, helpers.job.locked_by))) return;
      const job = (await this.store.jobs.get(id))!;
      const entry: RunningJob = { job, controller: new AbortController(), runAt: helpers.job.run_at };
      this.running.set(id, entry);
      const outcome = await this.lifecycle.runJob(job, entry.controller.signal);
      if (outcome.status === "handed-back") {
        const cancelledWith = await this.handBack(entry);
        if (cancelledWith !== null) await this.lifecycle.record(job, { status: "cancelled", detail: cancelledWith });
      } else if (!(entry.controller.signal.reason instanceof TakenForLostError)) {
        await this.lifecycle.record(job, outcome);
      }
      // Taken for lost: another worker recorded it failed and told its issue, or failUnheldJobs records it.
    } finally {
      this.running.delete(id);
      this.held.delete(id);
    }
  };

  /**
   * Records job `id` running on this worker, in the same statement that checks it is still queued, so a cancellation
   * cannot slip in between; false when it is not queued. A statement the database fails is tried again after a pause,
   * while this task holds the job's place at the head of its issue's line; the last failure is thrown (graphile-worker
   * then gives the job up, and requeueStranded queues it again).
   */
  private async claim(id: number, lockHolder: string | null): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        const claimed = await this.pool.query(
          "UPDATE jobs SET status = 'running', stage = 'start', detail = NULL, worker = $3, lock_holder = $2, started_at = $4, updated_at = $4 WHERE id = $1 AND status = 'queued' RETURNING id",
          [id, lockHolder, this.workerId, Date.now()],
        );
        return claimed.rowCount !== 0;
      } catch (error) {
        if (attempt >= CLAIM_TRIES) throw error;
        this.options.log.warn({ job: id, error: logged(error) }, `could not claim job ${id}; trying again in ${CLAIM_PAUSE_MS * attempt} ms`);
        await sleep(CLAIM_PAUSE_MS * attempt);
      }
    }
  }

  /**
   * Queues the job again, due when it first was, so it keeps its place before later jobs of its issue. A job someone
   * cancelled meanwhile (its worker had not seen it yet) is not queued again: returns the reason, for its record.
   */
  private async handBack({ job, runAt }: RunningJob): Promise<string | null> {
    const cancelledWith = await inTransaction(this.pool, async (client) => {
      // Under the lock, as cancel takes it: a cancellation either came before (seen here) or finds it queued.
      await lockKey(client, job.key);
      const { rows } = await client.query<{ cancel_reason: string | null }>("SELECT cancel_reason FROM jobs WHERE id = $1", [job.id]);
      if (rows[0]?.cancel_reason) return rows[0].cancel_reason;
      await client.query("UPDATE jobs SET status = 'queued', stage = NULL, worker = NULL, lock_holder = NULL, detail = $2, updated_at = $3 WHERE id = $1", [
        job.id,
        HANDED_BACK_REASON,
        Date.now(),
      ]);
      await enqueue(client, job.id, job.key, runAt);
      return null;
    });
    if (cancelledWith === null) this.options.log.info({ job: job.id, worker: this.workerId }, `handed job ${job.id} back: this worker is shutting down`);
    return cancelledWith;
  }

  /**
   * Says this worker is alive, stops its jobs someone cancelled, fails its records no task holds and the jobs of
   * workers silent too long, and queues again the jobs graphile-worker gave up before they started.
   */
  private async beat(): Promise<void> {
    const sent = performance.now();
    const alive = await this.beatPool!.query(`UPDATE magis_workers SET seen_at = ${DB_NOW} WHERE id = $1`, [this.workerId]);
    this.lastBeatAt = sent;
    if (alive.rowCount === 0 && !this.stopping) {
      // Another worker took this one for lost (it stalled past lostAfterMs) and failed its jobs: they must not publish.
      for (const entry of this.running.values()) entry.controller.abort(new TakenForLostError());
      await this.register();
    }
    await this.abortCancelled(this.beatPool!);
    await this.failUnheldJobs();
    await this.reportLostWorkers();
    await this.requeueGivenUp();
  }

  /**
   * Stops this worker's jobs when its heartbeats have not got through for a while (the database unreachable from
   * here): other workers will soon take it for lost, report its jobs failed and start the next jobs of their issues,
   * which must not run beside them. Their records are left to the worker that reports them.
   */
  private stopJobsIfCutOff(): void {
    const silentMs = performance.now() - this.lastBeatAt;
    if (silentMs <= this.lostAfterMs - 2 * this.heartbeatMs) return;
    const reason = `this worker could not reach the database for ${Math.round(silentMs / 1000)} s, so another worker takes it for lost and reports the run failed`;
    for (const entry of this.running.values()) if (!entry.controller.signal.aborted) entry.controller.abort(new TakenForLostError(reason));
  }

  /** Writes this worker's row, the heartbeat others judge it by. */
  private async register(): Promise<void> {
    const sent = performance.now();
    await this.beatPool!.query(
      `INSERT INTO magis_workers (id, host, pid, lost_after_ms, started_at, seen_at) VALUES ($1, $2, $3, $4, ${DB_NOW}, ${DB_NOW})
       ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
      [this.workerId, os.hostname(), process.pid, this.lostAfterMs],
    );
    this.lastBeatAt = sent;
  }

  /** Aborts this process's running jobs whose records carry a cancellation. */
  private async abortCancelled(db: pg.Pool): Promise<void> {
    if (this.running.size === 0) return;
    const { rows } = await db.query<{ id: string; cancel_reason: string }>(
      "SELECT id, cancel_reason FROM jobs WHERE id = ANY($1::bigint[]) AND cancel_reason IS NOT NULL",
      [[...this.running.keys()]],
    );
    for (const row of rows) {
      const entry = this.running.get(Number(row.id));
      if (entry && !entry.controller.signal.aborted) entry.controller.abort(new Error(row.cancel_reason));
    }
  }

  /**
   * Fails this worker's running records that none of its tasks holds: the outcome of a task could not be written
   * (the database failed the write), or a task stopped as lost found its record still running. No other worker fails
   * them while this one is alive, and a record left running would keep its issue busy.
   */
  private async failUnheldJobs(): Promise<void> {
    // A claim sent after this moment records a later start; one sent before is held already.
    const before = Date.now();
    const { rows } = await this.beatPool!.query<{ id: number }>(
      "UPDATE jobs SET status = 'failed', detail = $3, updated_at = $4 WHERE worker = $1 AND status = 'running' AND NOT (id = ANY($2::bigint[])) AND started_at < $4 RETURNING id",
      [this.workerId, [...this.held], UNRECORDED_REASON, before],
    );
    for (const { id } of rows) this.options.log.warn({ job: id, worker: this.workerId }, `job ${id} failed: ${UNRECORDED_REASON}`);
  }

  /** Fails the running jobs of workers silent too long (see failJobsOfLostWorkers) and tells onLost. */
  private async reportLostWorkers(): Promise<void> {
    for (const id of await failJobsOfLostWorkers(this.beatPool!)) {
      const job = (await this.store.jobs.get(id))!;
      this.options.log.warn({ job: id, worker: job.worker }, `job ${id} failed: ${LOST_REASON}`);
      await this.lifecycle.tell("onLost", job, () => this.options.onLost?.(job));
    }
  }

  /** Queues again the jobs graphile-worker gave up before they started (see requeueStranded). */
  private async requeueGivenUp(): Promise<void> {
    for (const id of await requeueStranded(this.beatPool!))
      this.options.log.warn({ job: id }, `queued job ${id} again: graphile-worker had given it up before it could start`);
  }
}

/** The signal's reason when this worker was, or is about to be, taken for lost: its jobs stop without a word more. */
class TakenForLostError extends Error {
  constructor(message = `${LOST_REASON}, so another worker reported the run failed`) {
    super(message);
    this.name = "TakenForLostError";
  }
}

/** graphile-worker's log, at warning and above, through the app's log. */
function quietLogger(log: LifecycleOptions["log"]): Logger {
  return new Logger(() => (level, message, meta) => {
    if (level === "error") log.error({ ...meta }, `graphile-worker: ${message}`);
    else if (level === "warning") log.warn({ ...meta }, `graphile-worker: ${message}`);
  });
}
