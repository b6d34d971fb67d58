import type { TriggerOutcome, TriggerRecord } from "../store/triggers.js";

/** A trigger as a row of the `triggers` table, the same columns in SQLite and PostgreSQL. */
export interface TriggerRow {
  delivery: string;
  event: string;
  installation_id: number;
  owner: string;
  repo: string;
  number: number;
  /** JSON text. */
  payload: string;
  received_at: number;
  outcome: TriggerOutcome | null;
  detail: string | null;
  decided_at: number | null;
}

/** The record a `triggers` row holds. */
export function triggerFromRow(row: TriggerRow): TriggerRecord {
  return {
    delivery: row.delivery,
    event: row.event,
    installationId: row.installation_id,
    owner: row.owner,
    repo: row.repo,
    number: row.number,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    receivedAt: row.received_at,
    outcome: row.outcome,
    detail: row.detail,
    decidedAt: row.decided_at,
  };
}
