import type { Db } from "./database.js";
import { jobFromRow, type JobRow } from "../job-row.js";
import type { JobRecord, JobStatus, NewJob } from "../../store/jobs.js";
import type { JobStore } from "../../store/store.js";

/**
 * Job records in the SQLite file. Both engines answer synchronously; the methods are async only to keep the
 * store's one contract, and a locked database surfaces as the rejected promise's lock error (isLockError).
 */
export class SqliteJobStore implements JobStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  get where(): string {
    return this.db.name;
  }

  async add(job: NewJob, status: "queued" | "declined" = "queued", detail: string | null = null): Promise<JobRecord | null> {
    const at = this.now();
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO jobs (delivery, key, kind, installation_id, owner, repo, number, payload, status, detail, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(job.delivery, job.key, job.kind, job.installationId, job.owner, job.repo, job.number, JSON.stringify(job.payload), status, detail, at, at);
    return info.changes === 0 ? null : this.read(Number(info.lastInsertRowid));
  }

  async seen(delivery: string): Promise<boolean> {
    return this.db.prepare("SELECT 1 FROM jobs WHERE delivery = ?").get(delivery) !== undefined;
  }

  async get(id: number): Promise<JobRecord | null> {
    return this.read(id);
  }

  async newest(which?: { key: string; kind: string; status: JobStatus }): Promise<JobRecord | null> {
    const row = (
      which
        ? this.db.prepare("SELECT * FROM jobs WHERE key = ? AND kind = ? AND status = ? ORDER BY id DESC LIMIT 1").get(which.key, which.kind, which.status)
        : this.db.prepare("SELECT * FROM jobs ORDER BY id DESC LIMIT 1").get()
    ) as JobRow | undefined;
    return row ? jobFromRow(row) : null;
  }

  async withStatus(status: JobStatus): Promise<JobRecord[]> {
    return (this.db.prepare("SELECT * FROM jobs WHERE status = ? ORDER BY id").all(status) as JobRow[]).map(jobFromRow);
  }

  async start(id: number, stage: string, worker: string | null = null): Promise<void> {
    const at = this.now();
    this.db
      .prepare("UPDATE jobs SET status = 'running', stage = ?, detail = NULL, worker = ?, started_at = ?, updated_at = ? WHERE id = ?")
      .run(stage, worker, at, at, id);
  }

  async setStage(id: number, stage: string): Promise<void> {
    this.db.prepare("UPDATE jobs SET stage = ?, updated_at = ? WHERE id = ? AND status = 'running'").run(stage, this.now(), id);
  }

  async succeed(id: number, detail: string): Promise<void> {
    this.db.prepare("UPDATE jobs SET status = 'succeeded', detail = ?, updated_at = ? WHERE id = ?").run(detail, this.now(), id);
  }

  async fail(id: number, reason: string, stage?: string): Promise<void> {
    this.db
      .prepare("UPDATE jobs SET status = 'failed', detail = ?, stage = COALESCE(?, stage), updated_at = ? WHERE id = ?")
      .run(reason, stage ?? null, this.now(), id);
  }

  async cancel(ids: readonly number[], reason: string): Promise<void> {
    const cancel = this.db.prepare("UPDATE jobs SET status = 'cancelled', detail = ?, updated_at = ? WHERE id = ?");
    this.db.transaction(() => {
      for (const id of ids) cancel.run(reason, this.now(), id);
    })();
  }

  async depth(): Promise<Array<{ kind: string; status: "queued" | "running"; count: number }>> {
    return this.db.prepare("SELECT kind, status, COUNT(*) AS count FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status").all() as Array<{
      kind: string;
      status: "queued" | "running";
      count: number;
    }>;
  }

  private read(id: number): JobRecord | null {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | undefined;
    return row ? jobFromRow(row) : null;
  }
}
