import type { Backend, QueueOptions } from "../backend.js";
import type { JobRunner, ServeRole } from "../../jobs/job-queue.js";
import { APP_LOCK_WAIT_MS, type Db } from "./database.js";
import { InProcessQueue } from "./sqlite-queue.js";
import { SqliteStore } from "./sqlite-store.js";
import { atStartUp, DECISION_WAIT, DEFAULT_STORE_WAITS } from "./store-waits.js";

/**
 * The embedded backend: one SQLite file holds the records and the memory, and the queue runs in this process. The
 * app's one thread also answers webhooks, so its connection waits on another process's lock only briefly (see
 * APP_LOCK_WAIT_MS); its calls retry on timers instead.
 */
export class SqliteBackend implements Backend {
  readonly store: SqliteStore;
  readonly triggerLeaseMs = 0;

  constructor(db: Db, options: { answersWebhooks?: boolean } = {}) {
    if (options.answersWebhooks !== false) db.exec(`PRAGMA busy_timeout = ${APP_LOCK_WAIT_MS}`);
    this.store = new SqliteStore(db);
  }

  checkRole(role: ServeRole): void {
    if (role !== "all") {
      throw new Error(
        `--role ${role} needs a store several processes share: set DATABASE_URL to a PostgreSQL database (the SQLite file serves one process, --role all)`,
      );
    }
  }

  async migrate(log: QueueOptions["log"]): Promise<void> {
    await atStartUp(() => this.store.migrate(), this.store.where, log);
  }

  createQueue(runner: JobRunner, options: QueueOptions): InProcessQueue {
    return new InProcessQueue(this.store.jobs, runner, {
      ...options,
      // Jobs are submitted and cancelled by the trigger desk's decisions, after the webhook was answered: those calls
      // may wait longer for a lock than a webhook could (recording the webhook itself keeps the short wait).
      storeWaits: { ...DEFAULT_STORE_WAITS, webhook: DECISION_WAIT },
      onInterrupted: (job) => options.onAbandoned(job, "interrupted"),
    });
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
