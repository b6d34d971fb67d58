import { redactSecrets } from "../lib/redact-secrets.js";
import { StageError } from "../pipeline/errors.js";
import type { JobRecord } from "../store/jobs.js";
import type { JobStore } from "../store/store.js";
import { stoppedOutcome, type JobOutcome } from "./job-outcome.js";
import type { JobRunner, QueueLog } from "./job-queue.js";

/** What a queue is told of the jobs it runs. */
export interface LifecycleOptions {
  log: QueueLog;
  /** Told about a job that failed (after the record was updated, or could not be), with the reason recorded. */
  onFailed?: (job: JobRecord, reason: string) => void;
  /** Told about a job that was cancelled (after the record was updated, or could not be). */
  onCancelled?: (job: JobRecord, reason: string) => void | Promise<void>;
}

/**
 * How a running job's own records reach the store: a backend whose database another process may hold locked waits
 * that out here (SQLite, see sqliteRecording); the default writes at once. `recording` names the status being written.
 */
export type Recording = <T>(job: JobRecord, recording: string, call: () => T | Promise<T>) => Promise<T>;

/** How a backend has a running job's records written; both have defaults. */
export interface LifecycleRecording {
  /** How each record reaches the store (default: written at once). */
  recording?: Recording;
  /** The worker a job is recorded running on (default null: none named). */
  worker?: string | null;
}

/** The stage a running job is recorded in until its runner names one. */
const FIRST_STAGE = "start";

/**
 * One job's life as both queues run it: recorded running (on `worker`), run with its stages recorded, and its outcome
 * recorded and told. The queue decides which job runs when; this decides what is written about it.
 */
export class JobLifecycle {
  private readonly recording: Recording;
  private readonly worker: string | null;

  constructor(
    private readonly store: JobStore,
    private readonly run: JobRunner,
    private readonly options: LifecycleOptions,
    { recording = async (_job, _status, call) => call(), worker = null }: LifecycleRecording = {},
  ) {
    this.recording = recording;
    this.worker = worker;
  }

  /** Records the job running and runs it; never rejects. */
  async runJob(job: JobRecord, signal: AbortSignal): Promise<JobOutcome> {
    try {
      await this.recording(job, "running", () => this.store.start(job.id, FIRST_STAGE, this.worker));
    } catch (error) {
      return { status: "failed", detail: `could not record the job as started in ${this.store.where}: ${messageOf(error)}` };
    }
    try {
      // Cancelled while its start was being recorded: it never runs.
      signal.throwIfAborted();
      // A runner that returns finished its work (it may have published before it saw the signal): that is what happened.
      return await this.run(job, { stage: (name) => this.recordStage(job, name), signal });
    } catch (error) {
      if (signal.aborted) return stoppedOutcome(signal.reason);
      return { status: "failed", detail: messageOf(error), stage: error instanceof StageError ? error.stage : undefined };
    }
  }

  /**
   * Records the outcome (waited out as the backend's recording says, else logged), then tells the callbacks. A run
   * handed back is its queue's to record: it queues the job again.
   */
  async record(job: JobRecord, outcome: JobOutcome): Promise<void> {
    if (outcome.status === "handed-back") return;
    try {
      await this.recording(job, outcome.status, () => {
        // A question asked is a run that did its work: kept succeeded, its detail saying what was asked.
        if (outcome.status === "succeeded" || outcome.status === "asked") return this.store.succeed(job.id, outcome.detail);
        if (outcome.status === "cancelled") return this.store.cancel([job.id], outcome.detail);
        return this.store.fail(job.id, outcome.detail, outcome.stage);
      });
    } catch (error) {
      this.options.log.error(
        { job: job.id, outcome: outcome.status, file: this.store.where, error: logged(error) },
        `could not record job ${job.id} as ${outcome.status}; its record keeps its earlier status until it is found left running and marked failed (at the app's next start; on PostgreSQL at this worker's next heartbeat)`,
      );
    }
    if (outcome.status === "failed") await this.tell("onFailed", job, () => this.options.onFailed?.(job, outcome.detail));
    if (outcome.status === "cancelled") await this.tell("onCancelled", job, () => this.options.onCancelled?.(job, outcome.detail));
  }

  /** Progress is only shown to people: a stage that cannot be recorded is logged and the job goes on. */
  private recordStage(job: JobRecord, stage: string): void {
    this.store.setStage(job.id, stage).catch((error: unknown) => {
      this.options.log.warn({ job: job.id, stage, error: logged(error) }, `could not record that job ${job.id} reached stage ${stage}; the job goes on`);
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

/** An error's message (or the thrown value in words). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as a log line may show it. */
export function logged(error: unknown): string {
  return redactSecrets(messageOf(error));
}
