import type { Db } from "./database.js";
import { isLockError } from "./retry-while-locked.js";

/**
 * Where a job is in its life. `declined`: it arrived while another job with its key ran and was answered instead;
 * `cancelled`: stopped on request (its issue closed, its time ran out) before or while it ran.
 */
export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "declined" | "cancelled";

/** What a trigger asks for: everything a worker needs to run the job later, in any process. */
export interface NewJob {
  /** The webhook delivery id (`X-GitHub-Delivery`); a second job with the same id is never recorded. */
  delivery: string;
  /** Jobs with the same key never run at the same time (see `jobKey`). */
  key: string;
  /** What to run: `resolve-issue` (issue 6 adds pull-request revisions). */
  kind: string;
  installationId: number;
  owner: string;
  repo: string;
  /** The issue (or pull request) number the job reports on. */
  number: number;
  /** Kind-specific data (validated config, guidance, sender), stored as JSON. */
  payload: Record<string, unknown>;
}

/** A job as stored. */
export interface JobRecord extends NewJob {
  id: number;
  status: JobStatus;
  /** The stage a running job is in, or the stage a failed or cancelled job stopped in. */
  stage: string | null;
  /** Why it failed, was declined or cancelled; the PR URL when it succeeded. */
  detail: string | null;
  /** The worker process running it, or that ran it last (null in the embedded app, where one process runs every job). */
  worker: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The key that serializes work on one issue: an issue and the bot's pull requests for it share it. */
export function jobKey(owner: string, repo: string, issueNumber: number): string {
  return `${owner}/${repo}#${issueNumber}`.toLowerCase();
}

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
  worker?: string | null;
  created_at: number;
  updated_at: number;
}

/** Job records in the shared SQLite file (the same one as the evolution memory). */
export class JobStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    try {
      this.createTables();
    } catch (error) {
      // Creating the tables in a new file needs the write lock; when another process holds it, the queue's start
      // retries createTables on a timer instead of the app exiting here.
      if (!isLockError(error)) throw error;
    }
  }

  /** The SQLite file the records are in (for log lines an operator acts on). */
  get file(): string {
    return this.db.name;
  }

  /** Creates the table and its indexes unless they exist (a no-op that needs no lock when they do). */
  createTables(): void {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery TEXT NOT NULL UNIQUE,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        installation_id INTEGER NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        stage TEXT,
        detail TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status);
      CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, status);
    `);
  }

  /** Records a job with the given status; returns null when its delivery was recorded before (a redelivery). */
  add(job: NewJob, status: "queued" | "declined" = "queued", detail: string | null = null): JobRecord | null {
    const at = this.now();
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO jobs (delivery, key, kind, installation_id, owner, repo, number, payload, status, detail, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(job.delivery, job.key, job.kind, job.installationId, job.owner, job.repo, job.number, JSON.stringify(job.payload), status, detail, at, at);
    return info.changes === 0 ? null : this.get(Number(info.lastInsertRowid));
  }

  /** Whether a delivery id was recorded already. */
  seen(delivery: string): boolean {
    return this.db.prepare("SELECT 1 FROM jobs WHERE delivery = ?").get(delivery) !== undefined;
  }

  /** One job by id. */
  get(id: number): JobRecord | null {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** The job queued last, if any. */
  newest(): JobRecord | null {
    const row = this.db.prepare("SELECT * FROM jobs ORDER BY id DESC LIMIT 1").get() as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Jobs in a status, oldest first. */
  withStatus(status: JobStatus): JobRecord[] {
    return (this.db.prepare("SELECT * FROM jobs WHERE status = ? ORDER BY id").all(status) as Row[]).map(toRecord);
  }

  /** Marks a job running, in its first stage. */
  start(id: number, stage: string): void {
    this.update(id, "running", stage, null);
  }

  /** Records the stage a running job has reached. */
  setStage(id: number, stage: string): void {
    this.db.prepare("UPDATE jobs SET stage = ?, updated_at = ? WHERE id = ? AND status = 'running'").run(stage, this.now(), id);
  }

  /** Marks a job succeeded, with what it produced (a PR URL). */
  succeed(id: number, detail: string): void {
    this.db.prepare("UPDATE jobs SET status = 'succeeded', detail = ?, updated_at = ? WHERE id = ?").run(detail, this.now(), id);
  }

  /** Marks a job failed, keeping the stage it was in, with the reason in plain words. */
  fail(id: number, reason: string, stage?: string): void {
    this.db
      .prepare("UPDATE jobs SET status = 'failed', detail = ?, stage = COALESCE(?, stage), updated_at = ? WHERE id = ?")
      .run(reason, stage ?? null, this.now(), id);
  }

  /** Marks jobs cancelled, all or none, keeping the stage each was in, with the reason in plain words. */
  cancel(ids: readonly number[], reason: string): void {
    const cancel = this.db.prepare("UPDATE jobs SET status = 'cancelled', detail = ?, updated_at = ? WHERE id = ?");
    this.db.transaction(() => {
      for (const id of ids) cancel.run(reason, this.now(), id);
    })();
  }

  private update(id: number, status: JobStatus, stage: string | null, detail: string | null): void {
    this.db.prepare("UPDATE jobs SET status = ?, stage = ?, detail = ?, updated_at = ? WHERE id = ?").run(status, stage, detail, this.now(), id);
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
    worker: row.worker ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
