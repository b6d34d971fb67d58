import type pg from "pg";
import type { TriggerStore } from "../../store/store.js";
import { triggerFromRow, type TriggerRow } from "../trigger-row.js";
import type { NewTrigger, TriggerOutcome, TriggerRecord } from "../../store/triggers.js";

/** Every webhook the app took as a possible trigger, in PostgreSQL; the same contract as the SQLite store (sqlite-triggers.ts). */
export class PostgresTriggerStore implements TriggerStore {
  constructor(
    private readonly pool: pg.Pool,
    readonly where: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A delivery whose decision failed is taken again (its outcome reset). Two processes recording one delivery at once
   * are one insert and one conflict: the conflict's update waits for the insert, then finds the outcome not failed.
   */
  async record(trigger: NewTrigger, leaseMs = 0): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO triggers (delivery, event, installation_id, owner, repo, number, payload, received_at, claimed_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (delivery) DO UPDATE SET outcome = NULL, detail = NULL, decided_at = NULL, claimed_until = excluded.claimed_until
       WHERE triggers.outcome = 'failed'`,
      [
        trigger.delivery,
        trigger.event,
        trigger.installationId,
        trigger.owner,
        trigger.repo,
        trigger.number,
        JSON.stringify(trigger.payload),
        trigger.receivedAt,
        this.now() + leaseMs,
      ],
    );
    return rowCount !== 0;
  }

  /** The payload is kept only while it may be needed again: while undecided, or when the decision failed. */
  async decide(delivery: string, outcome: TriggerOutcome, detail: string): Promise<void> {
    await this.pool.query(
      `UPDATE triggers SET outcome = $2::text, detail = $3, decided_at = $4,
         payload = CASE WHEN $2::text = 'failed' THEN payload ELSE '{}' END
       WHERE delivery = $1`,
      [delivery, outcome, detail, this.now()],
    );
  }

  async get(delivery: string): Promise<TriggerRecord | null> {
    const { rows } = await this.pool.query<TriggerRow>("SELECT * FROM triggers WHERE delivery = $1", [delivery]);
    return rows[0] ? triggerFromRow(rows[0]) : null;
  }

  /** SKIP LOCKED: of processes claiming at once, each takes the triggers the others are not taking. */
  async claimUndecided(leaseMs: number): Promise<TriggerRecord[]> {
    const now = this.now();
    const { rows } = await this.pool.query<TriggerRow & { seq: number }>(
      `WITH taken AS (
         SELECT delivery FROM triggers WHERE outcome IS NULL AND COALESCE(claimed_until, 0) <= $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE triggers SET claimed_until = $2 FROM taken WHERE triggers.delivery = taken.delivery RETURNING triggers.*`,
      [now, now + leaseMs],
    );
    return rows.sort((a, b) => a.received_at - b.received_at || a.seq - b.seq).map(triggerFromRow);
  }

  async all(): Promise<TriggerRecord[]> {
    const { rows } = await this.pool.query<TriggerRow>("SELECT * FROM triggers ORDER BY received_at, seq");
    return rows.map(triggerFromRow);
  }
}
