import type { Backend, QueueOptions } from "../backend.js";
import type { JobRunner } from "../../jobs/job-queue.js";
import { PostgresQueue } from "./postgres-queue.js";
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";

/** How long the web process that records a trigger holds it before another process may decide it. */
const TRIGGER_LEASE_MS = 60_000;

/**
 * The shared backend: one PostgreSQL database holds the records, the memory and the queue (graphile-worker) of any
 * number of `web` and `worker` processes on any machines.
 */
export class PostgresBackend implements Backend {
  readonly triggerLeaseMs = TRIGGER_LEASE_MS;

  constructor(readonly store: PostgresStore) {}

  checkRole(): void {}

  async migrate(): Promise<void> {
    // Migrations take an advisory lock: processes starting at once wait for each other in the database.
    await this.store.migrate();
  }

  createQueue(runner: JobRunner, options: QueueOptions): PostgresQueue {
    const poolSize = this.store.pool.options.max ?? 10;
    if (options.role !== "web" && poolSize < options.concurrency + 2) {
      options.log.warn(
        { poolSize, concurrency: options.concurrency },
        "MAGIS_DB_POOL_SIZE is not above MAGIS_JOBS_CONCURRENCY + 1: jobs waiting for another process's index write may wait for a connection too; raise MAGIS_DB_POOL_SIZE",
      );
    }
    return new PostgresQueue(this.store, runner, { ...options, onLost: (job) => options.onAbandoned(job, "lost") });
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** The PostgreSQL backend in the database at `url`, checked to answer (see openPostgresStore); not migrated yet. */
export async function openPostgresBackend(url: string, options: PostgresStoreOptions = {}): Promise<PostgresBackend> {
  return new PostgresBackend(await openPostgresStore(url, options));
}
