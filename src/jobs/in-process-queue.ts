import type { JobRecord, JobStore, NewJob } from "../store/jobs.js";
import type { JobQueue, JobRunner, SubmitOutcome, WhenBusy } from "./job-queue.js";

/** Options of the in-process queue. */
export interface InProcessQueueOptions {
  /** Most jobs running at once across keys (a job holds a whole clone in memory). */
  concurrency?: number;
  /** Told about each job an earlier process left running, after it was marked failed. */
  onInterrupted?: (job: JobRecord) => Promise<void>;
  /** Told about a job that failed (the record is updated already). */
  onFailed?: (job: JobRecord, error: unknown) => void;
}

/** The reason recorded for a job found running when the process started. */
export const INTERRUPTED_REASON = "the app restarted while this job was running";

/** A queue in this process, with its job records in SQLite: one job per key at a time, at most `concurrency` at once. */
export class InProcessQueue implements JobQueue {
  private readonly pending: JobRecord[] = [];
  private readonly runningKeys = new Set<string>();
  private readonly controllers = new Map<number, { job: JobRecord; controller: AbortController }>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly store: JobStore,
    private readonly run: JobRunner,
    private readonly options: InProcessQueueOptions = {},
  ) {}

  async submit(job: NewJob, whenBusy: WhenBusy): Promise<SubmitOutcome> {
    if (this.store.seen(job.delivery)) return { status: "duplicate" };
    const behind = this.store.busy(job.key);
    if (whenBusy === "decline" && behind) {
      const declined = this.store.add(job, "declined", "another job for this issue was queued or running");
      return declined ? { status: "busy", job: declined } : { status: "duplicate" };
    }
    const queued = this.store.add(job);
    if (!queued) return { status: "duplicate" };
    this.pending.push(queued);
    // Start on a later turn of the event loop so the webhook is answered before any work begins.
    setImmediate(() => this.pump());
    return { status: "queued", job: queued, behind };
  }

  async start(): Promise<void> {
    for (const job of this.store.withStatus("running")) {
      this.store.fail(job.id, INTERRUPTED_REASON);
      await this.options.onInterrupted?.(this.store.get(job.id)!);
    }
    this.pending.push(...this.store.withStatus("queued").filter((job) => !this.pending.some((p) => p.id === job.id)));
    this.pump();
  }

  // PROVISIONAL (lead): replaced by the queue helper's implementation on merge.
  async cancel(key: string, reason: string, kind?: string): Promise<number> {
    let count = 0;
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const job = this.pending[i]!;
      if (job.key !== key || (kind && job.kind !== kind)) continue;
      this.pending.splice(i, 1);
      this.store.cancelProvisional(job.id, reason);
      count++;
    }
    for (const { job, controller } of this.controllers.values()) {
      if (job.key !== key || (kind && job.kind !== kind) || controller.signal.aborted) continue;
      controller.abort(new Error(reason));
      count++;
    }
    return count;
  }

  drain(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private idle(): boolean {
    return this.pending.length === 0 && this.runningKeys.size === 0;
  }

  private pump(): void {
    // At least one: a limit of 0, a negative or NaN one (MAGIS_JOBS_CONCURRENCY=-1) would leave every job queued forever.
    const limit = Math.max(1, Math.floor(this.options.concurrency ?? 2) || 1);
    while (this.runningKeys.size < limit) {
      const next = this.pending.findIndex((job) => !this.runningKeys.has(job.key));
      if (next < 0) break;
      const [job] = this.pending.splice(next, 1);
      this.runningKeys.add(job!.key);
      void this.execute(job!);
    }
    if (this.idle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async execute(job: JobRecord): Promise<void> {
    this.store.start(job.id, "queued");
    const controller = new AbortController();
    this.controllers.set(job.id, { job, controller });
    try {
      const detail = await this.run(job, { stage: (name) => this.store.setStage(job.id, name), signal: controller.signal });
      this.store.succeed(job.id, detail);
    } catch (error) {
      const stage = (error as { stage?: unknown }).stage;
      // PROVISIONAL (lead): a cancelled job is recorded as such by the queue helper's implementation.
      const reason = error instanceof Error ? error.message : String(error);
      if ((error as { cancelled?: unknown }).cancelled === true) this.store.cancelProvisional(job.id, reason, typeof stage === "string" ? stage : undefined);
      else this.store.fail(job.id, reason, typeof stage === "string" ? stage : undefined);
      this.options.onFailed?.(job, error);
    } finally {
      this.controllers.delete(job.id);
      this.runningKeys.delete(job.key);
      this.pump();
    }
  }
}
