import type { LifecycleOptions } from "../jobs/job-lifecycle.js";
import type { JobQueue, JobRunner, ServeRole } from "../jobs/job-queue.js";
import type { JobRecord } from "../store/jobs.js";
import type { Store } from "../store/store.js";

/** How the app runs its queue on a backend. */
export interface QueueOptions extends LifecycleOptions {
  role: ServeRole;
  /** Most jobs this process runs at once. */
  concurrency: number;
  /** How long a worker not heard from may stay silent before its running jobs are failed (a backend shared by processes). */
  lostAfterMs: number;
  /**
   * Told about each job that stopped with its process, after its record says so: `interrupted`, found running when
   * this process started; `lost`, its worker stopped answering.
   */
  onAbandoned: (job: JobRecord, how: "interrupted" | "lost") => Promise<void>;
}

/**
 * One database as the app uses it: the store (job records, triggers, the evolution memory and the index cache), the
 * job queue on it, and how it waits out other processes. SQLite in one file serves one process; PostgreSQL is shared
 * by any number of `web` and `worker` processes. The app never asks which it has: the backend answers for itself.
 */
export interface Backend {
  readonly store: Store;
  /**
   * How long the process that records a trigger holds it before another may decide it: 0 where one process has the
   * store; with a shared store, the desk also looks every half lease for triggers their recorder left undecided.
   */
  readonly triggerLeaseMs: number;
  /** Throws, saying what to set, when this backend cannot serve a process in `role` (`web` and `worker` need a shared store). */
  checkRole(role: ServeRole): void;
  /** Applies the store's migrations, waiting out another process that holds the database, saying so in `log`. */
  migrate(log: LifecycleOptions["log"]): Promise<void>;
  /** The job queue of this backend, running each job with `runner`. */
  createQueue(runner: JobRunner, options: QueueOptions): JobQueue;
  close(): Promise<void>;
}
