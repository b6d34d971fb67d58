import { redactSecrets } from "../lib/redact-secrets.js";
import type { JobRecord } from "../store/jobs.js";
import { retryWhileLocked, type LockWait } from "../backends/sqlite/retry-while-locked.js";
import type { JobStore } from "../store/store.js";
import type { JobRunner } from "./job-queue.js";

/** Where a queue says what an operator should know (Probot's pino logger fits). */
export interface QueueLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What a queue is told of the jobs it runs, and how long their records wait out a locked store. */
export interface LifecycleOptions {
  log: QueueLog;
  /** Told about a job that failed (after the record was updated, or could not be). */
  onFailed?: (job: JobRecord, error: unknown) => void;
  /** Told about a job that was cancelled (after the record was updated, or could not be). */
  onCancelled?: (job: JobRecord, reason: string) => void | Promise<void>;
}

/** How a run ended. */
export type Outcome = { status: "succeeded"; detail: string } | { status: "failed"; error: unknown } | { status: "cancelled"; reason: string };

/** The stage a running job is recorded in until its runner names one. */
const FIRST_STAGE = "start";

/**
 * One job's life as both queues run it: recorded running (on `worker`), run with its stages recorded, and its outcome
 * recorded and told. The queue decides which job runs when; this decides what is written about it.
 */
export class JobLifecycle {
  constructor(
    private readonly store: JobStore,
    private readonly run: JobRunner,
    private readonly options: LifecycleOptions,
    private readonly jobWait: LockWait,
    private readonly worker: string | null = null,
  ) {}

  /** Records the job running and runs it; never rejects. */
  async runJob(job: JobRecord, signal: AbortSignal): Promise<Outcome> {
    try {
      await this.jobCall(job, "running", () => this.store.start(job.id, FIRST_STAGE, this.worker));
    } catch (error) {
      return { status: "failed", error: new Error(`could not record the job as started in ${this.store.where}: ${messageOf(error)}`, { cause: error }) };
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
  async record(job: JobRecord, outcome: Outcome): Promise<void> {
    try {
      await this.jobCall(job, outcome.status, () => {
        if (outcome.status === "succeeded") return this.store.succeed(job.id, outcome.detail);
        if (outcome.status === "cancelled") return this.store.cancel([job.id], outcome.reason);
        return this.store.fail(job.id, messageOf(outcome.error), stageOf(outcome.error));
      });
    } catch (error) {
      this.options.log.error(
        { job: job.id, outcome: outcome.status, file: this.store.where, error: logged(error) },
        `could not record job ${job.id} as ${outcome.status}; its record keeps its earlier status until it is found left running and marked failed (at the app's next start; on PostgreSQL at this worker's next heartbeat)`,
      );
    }
    if (outcome.status === "failed") await this.tell("onFailed", job, () => this.options.onFailed?.(job, outcome.error));
    if (outcome.status === "cancelled") await this.tell("onCancelled", job, () => this.options.onCancelled?.(job, outcome.reason));
  }

  /** Progress is only shown to people: a stage that cannot be recorded is logged and the job goes on. */
  private recordStage(job: JobRecord, stage: string): void {
    this.store.setStage(job.id, stage).catch((error: unknown) => {
      this.options.log.warn({ job: job.id, stage, error: logged(error) }, `could not record that job ${job.id} reached stage ${stage}; the job goes on`);
    });
  }

  /** A store call of a running job: waits out a lock for a bounded time, saying so once. */
  private jobCall<T>(job: JobRecord, recording: string, call: () => T | Promise<T>): Promise<T> {
    return retryWhileLocked(call, this.jobWait, (tries) => {
      if (tries > 1) return;
      this.options.log.warn(
        { job: job.id, file: this.store.where },
        `the job store is locked by another process; retrying to record job ${job.id} as ${recording} for up to ${Math.round(this.jobWait.totalMs / 1000)} s`,
      );
    });
  }

  /** Calls a callback; its failure is logged, never thrown into the queue. */
  async tell(name: string, job: JobRecord, call: () => unknown): Promise<void> {
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

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as a log line may show it. */
export function logged(error: unknown): string {
  return redactSecrets(messageOf(error));
}

/** The stage a StageError names. */
function stageOf(error: unknown): string | undefined {
  const stage = (error as { stage?: unknown } | null)?.stage;
  return typeof stage === "string" ? stage : undefined;
}
