import { redactSecrets } from "../redact-secrets.js";
import type { JobRecord, JobStore, NewJob } from "../store/jobs.js";
import { retryWhileLocked } from "../store/retry-while-locked.js";
import { type JobQueue, type JobRunner, type SubmitOutcome, type WhenBusy } from "./job-queue.js";
import { DEFAULT_STORE_WAITS, duringWebhook, type StoreWaits } from "./store-waits.js";

/** Where the queue says what an operator should know (Probot's pino logger fits). */
export interface QueueLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Options of the in-process queue. */
export interface InProcessQueueOptions {
  log: QueueLog;
  /** Most jobs running at once across keys (a job holds a whole clone in memory). */
  concurrency?: number;
  /** Told about each job an earlier process left running, after it was marked failed. */
  onInterrupted?: (job: JobRecord) => Promise<void>;
  /** Told about a job that failed (after the record was updated, or could not be). */
  onFailed?: (job: JobRecord, error: unknown) => void;
  /** Told about a job that was cancelled (after the record was updated, or could not be). */
  onCancelled?: (job: JobRecord, reason: string) => void | Promise<void>;
  /** How long store calls wait out another process's lock (tests shorten them). */
  storeWaits?: StoreWaits;
}

/** The reason recorded for a job found running when the process started. */
export const INTERRUPTED_REASON = "the app restarted while this job was running";

/** The stage a running job is recorded in until its runner names one. */
const FIRST_STAGE = "start";

type Outcome = { status: "succeeded"; detail: string } | { status: "failed"; error: unknown } | { status: "cancelled"; reason: string };

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
  private readonly waits: StoreWaits;

  constructor(
    private readonly store: JobStore,
    private readonly run: JobRunner,
    private readonly options: InProcessQueueOptions,
  ) {
    this.waits = options.storeWaits ?? DEFAULT_STORE_WAITS;
  }

  async submit(job: NewJob, whenBusy: WhenBusy): Promise<SubmitOutcome> {
    const outcome = await this.webhookCall((): SubmitOutcome => {
      if (this.store.seen(job.delivery)) return { status: "duplicate" };
      const behind = this.busy(job.key);
      if (whenBusy === "decline" && behind) {
        const declined = this.store.add(job, "declined", "another job for this issue was queued or running");
        return declined ? { status: "busy", job: declined } : { status: "duplicate" };
      }
      const queued = this.store.add(job);
      return queued ? { status: "queued", job: queued, behind } : { status: "duplicate" };
    });
    if (outcome.status === "queued") {
      this.pending.push(outcome.job);
      // Start on a later turn of the event loop so the webhook is answered before any work begins.
      setImmediate(() => this.pump());
    }
    return outcome;
  }

  async start(): Promise<void> {
    await this.startUpCall(() => this.store.createTables());
    for (const job of await this.startUpCall(() => this.store.withStatus("running"))) {
      const failed = await this.startUpCall(() => {
        this.store.fail(job.id, INTERRUPTED_REASON);
        return this.store.get(job.id)!;
      });
      await this.tell("onInterrupted", failed, () => this.options.onInterrupted?.(failed));
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
      if (queued.length > 0) await this.webhookCall(() => this.store.cancel(queued.map((job) => job.id), reason));
    } catch (error) {
      this.pending.push(...queued);
      this.pending.sort((a, b) => a.id - b.id);
      setImmediate(() => this.pump());
      throw error;
    }
    const running = this.running.get(key);
    const abort = running !== undefined && matches(running.job) && !running.controller.signal.aborted;
    if (abort) running.controller.abort(new Error(reason));
    for (const job of queued) await this.tell("onCancelled", job, () => this.options.onCancelled?.(job, reason));
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
    return this.pending.length === 0 && this.running.size === 0;
  }

  private pump(): void {
    // At least one: a limit of 0, a negative or NaN one (MAGIS_JOBS_CONCURRENCY=-1) would leave every job queued forever.
    const limit = Math.max(1, Math.floor(this.options.concurrency ?? 2) || 1);
    while (this.running.size < limit) {
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
      await this.record(job, await this.runJob(job, controller.signal));
    } finally {
      this.running.delete(job.key);
      this.pump();
    }
  }

  private async runJob(job: JobRecord, signal: AbortSignal): Promise<Outcome> {
    try {
      await this.jobCall(job, "running", () => this.store.start(job.id, FIRST_STAGE));
    } catch (error) {
      return { status: "failed", error: new Error(`could not record the job as started in ${this.store.file}: ${messageOf(error)}`, { cause: error }) };
    }
    try {
      // Cancelled while its start was being recorded: it never runs.
      signal.throwIfAborted();
      // A runner that returns finished its work (it may have published before it saw the signal): that is what happened.
      const detail = await this.run(job, { stage: (name) => this.recordStage(job, name), signal });
      return { status: "succeeded", detail };
    } catch (error) {
      if (signal.aborted) return cancelled(signal.reason);
      // A runner that finds on its own that its job is no longer wanted (the issue closed unseen) ends it as cancelled.
      return (error as { cancelled?: unknown }).cancelled === true ? cancelled(error) : { status: "failed", error };
    }
  }

  /** Records the outcome (retried while the store is locked, for a bounded time, else logged), then tells the callbacks. */
  private async record(job: JobRecord, outcome: Outcome): Promise<void> {
    try {
      await this.jobCall(job, outcome.status, () => {
        if (outcome.status === "succeeded") this.store.succeed(job.id, outcome.detail);
        else if (outcome.status === "cancelled") this.store.cancel([job.id], outcome.reason);
        else this.store.fail(job.id, messageOf(outcome.error), stageOf(outcome.error));
      });
    } catch (error) {
      this.options.log.error(
        { job: job.id, outcome: outcome.status, file: this.store.file, error: logged(error) },
        `could not record job ${job.id} as ${outcome.status}; its record keeps its earlier status until the app restarts (a job left running is then marked failed)`,
      );
    }
    if (outcome.status === "failed") await this.tell("onFailed", job, () => this.options.onFailed?.(job, outcome.error));
    if (outcome.status === "cancelled") await this.tell("onCancelled", job, () => this.options.onCancelled?.(job, outcome.reason));
  }

  /** Progress is only shown to people: a stage that cannot be recorded is logged and the job goes on. */
  private recordStage(job: JobRecord, stage: string): void {
    try {
      this.store.setStage(job.id, stage);
    } catch (error) {
      this.options.log.warn({ job: job.id, stage, error: logged(error) }, `could not record that job ${job.id} reached stage ${stage}; the job goes on`);
    }
  }

  /** A store call of a webhook: waits briefly for a lock, then says the delivery should come again. */
  private webhookCall<T>(call: () => T): Promise<T> {
    return duringWebhook(call, this.store.file, this.waits.webhook);
  }

  /** A store call of a running job: waits out a lock for a bounded time, saying so once. */
  private jobCall<T>(job: JobRecord, recording: string, call: () => T): Promise<T> {
    return retryWhileLocked(call, this.waits.job, (tries) => {
      if (tries > 1) return;
      this.options.log.warn(
        { job: job.id, file: this.store.file },
        `the job store is locked by another process; retrying to record job ${job.id} as ${recording} for up to ${Math.round(this.waits.job.totalMs / 1000)} s`,
      );
    });
  }

  /** A store call at start-up: nothing is served yet, so it waits as long as the lock lasts, saying so every minute. */
  private async startUpCall<T>(call: () => T): Promise<T> {
    let saidAt = -Infinity;
    const result = await retryWhileLocked(call, this.waits.startUp, (_tries, waitedMs) => {
      if (waitedMs - saidAt < 60_000) return;
      saidAt = waitedMs;
      this.options.log.warn(
        { file: this.store.file, waitedMs },
        "the job store is locked by another process (a sqlite3 shell, a backup, a stuck magis process?); the app starts once it is released, retrying every few seconds",
      );
    });
    if (saidAt >= 0) this.options.log.info({ file: this.store.file }, "the job store is free again; starting the job queue");
    return result;
  }

  /** Calls a callback of the options; its failure is logged, never thrown into the queue. */
  private async tell(name: string, job: JobRecord, call: () => unknown): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.options.log.warn({ job: job.id, error: logged(error) }, `${name} failed for job ${job.id}`);
    }
  }
}

function cancelled(reason: unknown): Outcome {
  return { status: "cancelled", reason: messageOf(reason) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as a log line may show it. */
function logged(error: unknown): string {
  return redactSecrets(messageOf(error));
}

/** The stage a StageError names. */
function stageOf(error: unknown): string | undefined {
  const stage = (error as { stage?: unknown } | null)?.stage;
  return typeof stage === "string" ? stage : undefined;
}
