import type { JobRecord, NewJob } from "../store/jobs.js";
import type { JobOutcome } from "./job-outcome.js";

/** What to do with a job whose key already has one queued or running: answer it (`decline`) or run it afterwards (`wait`). */
export type WhenBusy = "decline" | "wait";

/** How a submission ended: queued to run (`behind`: after a job with its key that is queued or running), ignored as a redelivery, or declined because its key was busy. */
export type SubmitOutcome = { status: "queued"; job: JobRecord; behind: boolean } | { status: "duplicate" } | { status: "busy"; job: JobRecord };

/**
 * Runs one job; `stage` records progress, `signal` is aborted (its reason an Error saying why) when the job is
 * cancelled or handed back. Returns how the run ended; a runner that throws fails the job with the error's message.
 */
export type JobRunner = (job: JobRecord, progress: { stage: (name: string) => void; signal: AbortSignal }) => Promise<JobOutcome>;

/** What a process does: takes webhooks and queues their jobs (`web`), runs jobs (`worker`), or both (`all`). */
export type ServeRole = "web" | "worker" | "all";

/** Where a queue says what an operator should know (Probot's pino logger fits). */
export interface QueueLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Where triggers put work: the in-process queue (SQLite, one process) or the PostgreSQL queue (any number of processes). */
export interface JobQueue {
  /** Records the job and schedules it; returns at once, before the job runs. Throws JobStoreBusyError when the job cannot be recorded now. */
  submit(job: NewJob, whenBusy: WhenBusy): Promise<SubmitOutcome>;
  /** Begins work: fails jobs an earlier process left running (calling `onInterrupted`) and resumes jobs it left queued. */
  start(): Promise<void>;
  /** Resolves once nothing is queued or running. */
  drain(): Promise<void>;
  /**
   * Cancels the queued and running jobs of `key` (optionally only those of `kind`): queued ones are recorded
   * `cancelled` with `reason` and never run; a running one has its signal aborted with `reason` (an Error whose
   * message is the reason) and is recorded `cancelled` when its runner returns or throws. Resolves to the number
   * of jobs cancelled. Throws JobStoreBusyError (cancelling nothing) when the queued ones cannot be recorded now.
   */
  cancel(key: string, reason: string, kind?: string): Promise<number>;
  /**
   * Stops taking jobs; running ones may finish within `graceMs`, then they are stopped (a queue that other processes
   * share hands them back to run elsewhere). Resolves once none of this process's jobs runs.
   */
  stop(graceMs: number): Promise<void>;
}
