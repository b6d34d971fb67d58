import type { Db } from "../database.js";
import type { JobRecord, JobStatus, NewJob } from "../jobs.js";
import type { JobStore } from "../store.js";

interface Row {
  id: number;
  delivery: string;
  key: string;
  kind: string;
  installation_id: number;
  owner: string;
  repo: string;
  number: number;
  payload: string;
  status: JobStatus;
  stage: string | null;
  detail: string | null;
  worker: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * Job records in the SQLite file. better-sqlite3 answers synchronously; the methods are async only to keep the
 * store's one contract, and a locked database surfaces as the rejected promise's SQLITE_BUSY.
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

  async newest(): Promise<JobRecord | null> {
    const row = this.db.prepare("SELECT * FROM jobs ORDER BY id DESC LIMIT 1").get() as Row | undefined;
    return row ? toRecord(row) : null;
  }

  async withStatus(status: JobStatus): Promise<JobRecord[]> {
    return (this.db.prepare("SELECT * FROM jobs WHERE status = ? ORDER BY id").all(status) as Row[]).map(toRecord);
  }

  async start(id: number, stage: string, worker: string | null = null): Promise<void> {
    this.db.prepare("UPDATE jobs SET status = 'running', stage = ?, detail = NULL, worker = ?, updated_at = ? WHERE id = ?").run(stage, worker, this.now(), id);
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

  private read(id: number): JobRecord | null {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }
}

function toRecord(row: Row): JobRecord {
  return {
    id: row.id,
    delivery: row.delivery,
    key: row.key,
    kind: row.kind,
    installationId: row.installation_id,
    owner: row.owner,
    repo: row.repo,
    number: row.number,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    status: row.status,
    stage: row.stage,
    detail: row.detail,
    worker: row.worker,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
