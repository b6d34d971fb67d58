import type { JobRecord, JobStatus } from "../store/jobs.js";

/** A job as a row of the `jobs` table, the same columns in SQLite and PostgreSQL. */
export interface JobRow {
  id: number;
  delivery: string;
  key: string;
  kind: string;
  installation_id: number;
  owner: string;
  repo: string;
  number: number;
  /** JSON text. */
  payload: string;
  status: JobStatus;
  stage: string | null;
  detail: string | null;
  /** Missing in a SQLite file written before jobs named their worker. */
  worker?: string | null;
  /** Missing in a SQLite file written before jobs recorded their start. */
  started_at?: number | null;
  created_at: number;
  updated_at: number;
}

/** The record a `jobs` row holds. */
export function jobFromRow(row: JobRow): JobRecord {
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
    startedAt: row.started_at ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
