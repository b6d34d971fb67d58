import type pg from "pg";
import { jobFromRow, type JobRow } from "../job-row.js";
import type { JobRecord, JobStatus, NewJob } from "../../store/jobs.js";
import type { JobStore } from "../../store/store.js";

/** Job records in PostgreSQL, shared by every process of the app; the same contract as the SQLite store (sqlite-jobs.ts). */
export class PostgresJobStore implements JobStore {
  constructor(
    private readonly pool: pg.Pool,
    readonly where: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** As the contract says; `db` is a client in a transaction of the caller's (the queue records and enqueues in one). */
  async add(
    job: NewJob,
    status: "queued" | "declined" = "queued",
    detail: string | null = null,
    db: pg.Pool | pg.PoolClient = this.pool,
  ): Promise<JobRecord | null> {
    const at = this.now();
    // ON CONFLICT DO NOTHING: of two processes adding one delivery at once, one inserts and the other gets no row.
    const { rows } = await db.query<JobRow>(
      `INSERT INTO jobs (delivery, key, kind, installation_id, owner, repo, number, payload, status, detail, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
       ON CONFLICT (delivery) DO NOTHING RETURNING *`,
      [job.delivery, job.key, job.kind, job.installationId, job.owner, job.repo, job.number, JSON.stringify(job.payload), status, detail, at],
    );
    return rows[0] ? jobFromRow(rows[0]) : null;
  }

  async seen(delivery: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM jobs WHERE delivery = $1", [delivery]);
    return rowCount !== 0;
  }

  async get(id: number): Promise<JobRecord | null> {
    return this.one("SELECT * FROM jobs WHERE id = $1", [id]);
  }

  async newest(which?: { key: string; kind: string; status: JobStatus }): Promise<JobRecord | null> {
    if (!which) return this.one("SELECT * FROM jobs ORDER BY id DESC LIMIT 1", []);
    return this.one("SELECT * FROM jobs WHERE key = $1 AND kind = $2 AND status = $3 ORDER BY id DESC LIMIT 1", [which.key, which.kind, which.status]);
  }

  async withStatus(status: JobStatus): Promise<JobRecord[]> {
    const { rows } = await this.pool.query<JobRow>("SELECT * FROM jobs WHERE status = $1 ORDER BY id", [status]);
    return rows.map(jobFromRow);
  }

  async start(id: number, stage: string, worker: string | null = null): Promise<void> {
    await this.pool.query("UPDATE jobs SET status = 'running', stage = $2, detail = NULL, worker = $3, started_at = $4, updated_at = $4 WHERE id = $1", [
      id,
      stage,
      worker,
      this.now(),
    ]);
  }

  async depth(): Promise<Array<{ kind: string; status: "queued" | "running"; count: number }>> {
    const { rows } = await this.pool.query<{ kind: string; status: "queued" | "running"; count: string }>(
      "SELECT kind, status, COUNT(*) AS count FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status",
    );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }

  async setStage(id: number, stage: string): Promise<void> {
    await this.pool.query("UPDATE jobs SET stage = $2, updated_at = $3 WHERE id = $1 AND status = 'running'", [id, stage, this.now()]);
  }

  async succeed(id: number, detail: string): Promise<void> {
    await this.pool.query("UPDATE jobs SET status = 'succeeded', detail = $2, updated_at = $3 WHERE id = $1", [id, detail, this.now()]);
  }

  async fail(id: number, reason: string, stage?: string): Promise<void> {
    await this.pool.query("UPDATE jobs SET status = 'failed', detail = $2, stage = COALESCE($3, stage), updated_at = $4 WHERE id = $1", [
      id,
      reason,
      stage ?? null,
      this.now(),
    ]);
  }

  /** One statement, so all the jobs are cancelled or none. */
  async cancel(ids: readonly number[], reason: string): Promise<void> {
    await this.pool.query("UPDATE jobs SET status = 'cancelled', detail = $2, updated_at = $3 WHERE id = ANY($1::bigint[])", [ids, reason, this.now()]);
  }

  private async one(sql: string, values: unknown[]): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<JobRow>(sql, values);
    return rows[0] ? jobFromRow(rows[0]) : null;
  }
}
