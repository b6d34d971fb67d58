import type { JobRecord, NewJob } from "../../store/jobs.js";
import type { JobStore } from "../../store/store.js";
import { type JobQueue, type JobRunner, type SubmitOutcome, type WhenBusy } from "../../jobs/job-queue.js";
import { JobLifecycle, type LifecycleOptions } from "../../jobs/job-lifecycle.js";
import { atStartUp, DEFAULT_STORE_WAITS, duringWebhook, sqliteRecording, type StoreWaits } from "./store-waits.js";

export type { QueueLog } from "../../jobs/job-queue.js";

/** Options of the in-process queue. */
export interface InProcessQueueOptions extends LifecycleOptions {
  /** Most jobs running at once across keys (a job holds a whole clone in memory). */
  concurrency?: number;
  /** Told about each job an earlier process left running, after it was marked failed. */
  onInterrupted?: (job: JobRecord) => Promise<void>;
  /** How long store calls wait out another process's lock (tests shorten them). */
  storeWaits?: StoreWaits;
}

/** The reason recorded for a job found running when the process started. */
export const INTERRUPTED_REASON = "the app restarted while this job was running";

interface RunningJob {
  job: JobRecord;
  controller: AbortController;
}

/** A queue in this process, with its job records in SQLite: one job per key at a time, at most `concurrency` at once. */
export class InProcessQueue implements JobQueue {
  private readonly pending: JobRecord[] = [];
  /** The running job of each key. */
  private readonly running = new Map<string, RunningJob>();
  private idleWaiters: (() => void)[] = [];
  private stopping = false;
  private readonly waits: StoreWaits;
  private readonly lifecycle: JobLifecycle;

  constructor(
    private readonly store: JobStore,
    run: JobRunner,
    private readonly options: InProcessQueueOptions,
  ) {
    this.waits = options.storeWaits ?? DEFAULT_STORE_WAITS;
    this.lifecycle = new JobLifecycle(store, run, options, { recording: sqliteRecording(store.where, this.waits.job, options.log) });
  }

  async submit(job: NewJob, whenBusy: WhenBusy): Promise<SubmitOutcome> {
    const outcome = await this.webhookCall(async (): Promise<SubmitOutcome> => {
      if (await this.store.seen(job.delivery)) return { status: "duplicate" };
      const behind = this.busy(job.key);
      if (whenBusy === "decline" && behind) {
        const declined = await this.store.add(job, "declined", "another job for this issue was queued or running");
        return declined ? { status: "busy", job: declined } : { status: "duplicate" };
      }
      const queued = await this.store.add(job);
      // On the queue as soon as it is recorded, so a submission of the same key deciding meanwhile sees it busy.
      if (queued) this.pending.push(queued);
      return queued ? { status: "queued", job: queued, behind } : { status: "duplicate" };
    });
    // Start on a later turn of the event loop so the webhook is answered before any work begins.
    if (outcome.status === "queued") setImmediate(() => this.pump());
    return outcome;
  }

  async start(): Promise<void> {
    for (const job of await this.startUpCall(() => this.store.withStatus("running"))) {
      const failed = await this.startUpCall(async () => {
        await this.store.fail(job.id, INTERRUPTED_REASON);
        return (await this.store.get(job.id))!;
      });
      await this.lifecycle.tell("onInterrupted", failed, () => this.options.onInterrupted?.(failed));
    }
    const queued = await this.startUpCall(() => this.store.withStatus("queued"));
    this.pending.push(...queued.filter((job) => !this.pending.some((p) => p.id === job.id)));
    this.pump();
  }

  drain(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async cancel(key: string, reason: string, kind?: string): Promise<number> {
    const matches = (job: JobRecord) => job.key === key && (kind === undefined || job.kind === kind);
    const queued = this.pending.filter(matches);
    // Off the queue before the write awaits, so pump cannot start them meanwhile; back on it if the write fails.
    this.pending.splice(0, this.pending.length, ...this.pending.filter((job) => !matches(job)));
    try {
      if (queued.length > 0)
        await this.webhookCall(() =>
          this.store.cancel(
            queued.map((job) => job.id),
            reason,
          ),
        );
    } catch (error) {
      this.pending.push(...queued);
      this.pending.sort((a, b) => a.id - b.id);
      setImmediate(() => this.pump());
      throw error;
    }
    const running = this.running.get(key);
    const abort = running !== undefined && matches(running.job) && !running.controller.signal.aborted;
    if (abort) running.controller.abort(new Error(reason));
    for (const job of queued) await this.lifecycle.tell("onCancelled", job, () => this.options.onCancelled?.(job, reason));
    // The queue may be idle now; pump tells those waiting in drain.
    this.pump();
    return queued.length + (abort ? 1 : 0);
  }

  /**
   * Whether `key` has a job queued, or running and not cancelled. Asked of this process, not of the store: only
   * this process runs the store's jobs, and a record it could not update (the store was locked) must not hold the
   * issue until a restart.
   */
  private busy(key: string): boolean {
    const running = this.running.get(key);
    return this.pending.some((job) => job.key === key) || (running !== undefined && !running.controller.signal.aborted);
  }

  private idle(): boolean {
    return (this.stopping || this.pending.length === 0) && this.running.size === 0;
  }

  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    // No other process takes these jobs: stopped after the grace period, they are recorded cancelled with the reason.
    const grace = setTimeout(() => {
      for (const { controller } of this.running.values()) controller.abort(new Error("the app was stopped (SIGTERM) before the run finished"));
    }, graceMs);
    try {
      await this.drain();
    } finally {
      clearTimeout(grace);
    }
  }

  private pump(): void {
    // At least one: a limit of 0, a negative or NaN one (MAGIS_JOBS_CONCURRENCY=-1) would leave every job queued forever.
    const limit = Math.max(1, Math.floor(this.options.concurrency ?? 2) || 1);
    while (!this.stopping && this.running.size < limit) {
      const next = this.pending.findIndex((job) => !this.running.has(job.key));
      if (next < 0) break;
      const [job] = this.pending.splice(next, 1);
      const entry = { job: job!, controller: new AbortController() };
      this.running.set(entry.job.key, entry);
      void this.execute(entry);
    }
    if (this.idle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Runs one job and records how it ended. Never rejects (nothing awaits it) and always frees the job's key. */
  private async execute({ job, controller }: RunningJob): Promise<void> {
    try {
      await this.lifecycle.record(job, await this.lifecycle.runJob(job, controller.signal));
    } finally {
      this.running.delete(job.key);
      this.pump();
    }
  }

  /** A store call of a webhook: waits briefly for a lock, then says the delivery should come again. */
  private webhookCall<T>(call: () => T | Promise<T>): Promise<T> {
    return duringWebhook(call, this.store.where, this.waits.webhook);
  }

  private startUpCall<T>(call: () => T | Promise<T>): Promise<T> {
    return atStartUp(call, this.store.where, this.options.log, this.waits.startUp);
  }
}
