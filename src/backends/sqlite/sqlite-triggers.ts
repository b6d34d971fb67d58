import type { Db } from "./database.js";
import type { TriggerStore } from "../../store/store.js";
import { triggerFromRow, type TriggerRow } from "../trigger-row.js";
import type { NewTrigger, TriggerOutcome, TriggerRecord } from "../../store/triggers.js";
import { retryWhileLocked } from "./retry-while-locked.js";
import { DEFAULT_STORE_WAITS, duringWebhook, type StoreWaits } from "./store-waits.js";

/**
 * Every webhook the app acted on or passed over, with what it decided and why, in the SQLite file. Another process's
 * lock on the file is waited out on timers: briefly while a webhook waits for its answer (then JobStoreBusyError says
 * to redeliver it), as long as a running job would for a decision already acted on, and as long as it lasts at start-up.
 */
export class SqliteTriggerStore implements TriggerStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    private readonly waits: StoreWaits = DEFAULT_STORE_WAITS,
  ) {}

  get where(): string {
    return this.db.name;
  }

  /**
   * Records a delivery to be decided; false when it was recorded before (a redelivery), which must not act twice. A
   * delivery whose decision failed (GitHub was down) is taken again: redelivering it from GitHub is how it is retried.
   */
  record(trigger: NewTrigger, leaseMs = 0): Promise<boolean> {
    return duringWebhook(() => this.insert(trigger, leaseMs), this.where, this.waits.webhook);
  }

  private insert(trigger: NewTrigger, leaseMs: number): boolean {
    const info = this.db
      .prepare(
        `INSERT INTO triggers (delivery, event, installation_id, owner, repo, number, payload, received_at, claimed_until)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (delivery) DO UPDATE SET outcome = NULL, detail = NULL, decided_at = NULL, claimed_until = excluded.claimed_until
         WHERE outcome = 'failed'`,
      )
      .run(
        trigger.delivery,
        trigger.event,
        trigger.installationId,
        trigger.owner,
        trigger.repo,
        trigger.number,
        JSON.stringify(trigger.payload),
        trigger.receivedAt,
        this.now() + leaseMs,
      );
    return info.changes > 0;
  }

  /**
   * Records what was decided about a delivery, and why. The payload (an issue body can run to 65k characters) is kept
   * only while it may be needed again: for a trigger not decided yet, or one whose decision failed.
   */
  async decide(delivery: string, outcome: TriggerOutcome, detail: string): Promise<void> {
    await retryWhileLocked(() => {
      this.db
        .prepare("UPDATE triggers SET outcome = ?, detail = ?, decided_at = ?, payload = CASE WHEN ? = 'failed' THEN payload ELSE '{}' END WHERE delivery = ?")
        .run(outcome, detail, this.now(), outcome, delivery);
    }, this.waits.job);
  }

  /** One trigger by its delivery id. */
  async get(delivery: string): Promise<TriggerRecord | null> {
    const row = this.db.prepare("SELECT * FROM triggers WHERE delivery = ?").get(delivery) as TriggerRow | undefined;
    return row ? triggerFromRow(row) : null;
  }

  claimUndecided(leaseMs: number): Promise<TriggerRecord[]> {
    return retryWhileLocked(() => this.takeUndecided(leaseMs), this.waits.startUp);
  }

  private takeUndecided(leaseMs: number): TriggerRecord[] {
    const now = this.now();
    const take = this.db.transaction(() => {
      const rows = this.db
        .prepare("SELECT * FROM triggers WHERE outcome IS NULL AND COALESCE(claimed_until, 0) <= ? ORDER BY received_at, rowid")
        .all(now) as TriggerRow[];
      const lease = this.db.prepare("UPDATE triggers SET claimed_until = ? WHERE delivery = ?");
      for (const row of rows) lease.run(now + leaseMs, row.delivery);
      return rows;
    });
    return take.immediate().map(triggerFromRow);
  }

  /** Every trigger, oldest first. */
  async all(): Promise<TriggerRecord[]> {
    return (this.db.prepare("SELECT * FROM triggers ORDER BY received_at, rowid").all() as TriggerRow[]).map(triggerFromRow);
  }
}
