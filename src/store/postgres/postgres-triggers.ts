import type pg from "pg";
import type { TriggerStore } from "../store.js";
import { triggerFromRow, type TriggerRow } from "../trigger-row.js";
import type { NewTrigger, TriggerOutcome, TriggerRecord } from "../triggers.js";

/** Every webhook the app took as a possible trigger, in PostgreSQL; the same rules as the SQLite store (triggers.ts). */
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
  async record(trigger: NewTrigger): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO triggers (delivery, event, installation_id, owner, repo, number, payload, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (delivery) DO UPDATE SET outcome = NULL, detail = NULL, decided_at = NULL WHERE triggers.outcome = 'failed'`,
      [trigger.delivery, trigger.event, trigger.installationId, trigger.owner, trigger.repo, trigger.number, JSON.stringify(trigger.payload), trigger.receivedAt],
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

  async undecided(olderThanMs = 0): Promise<TriggerRecord[]> {
    const { rows } = await this.pool.query<TriggerRow>(
      "SELECT * FROM triggers WHERE outcome IS NULL AND ($1::bigint IS NULL OR received_at <= $1) ORDER BY received_at, seq",
      [olderThanMs > 0 ? this.now() - olderThanMs : null],
    );
    return rows.map(triggerFromRow);
  }

  async all(): Promise<TriggerRecord[]> {
    const { rows } = await this.pool.query<TriggerRow>("SELECT * FROM triggers ORDER BY received_at, seq");
    return rows.map(triggerFromRow);
  }
}
