import type { Db } from "./database.js";

/**
 * What became of a webhook: not decided yet (`null`), a job was queued, it was answered without a job (declined:
 * busy, no permission, a broken config), ignored without a word (not for the app), a job was cancelled by it, or
 * the decision itself failed (GitHub unreachable, say).
 */
export type TriggerOutcome = "queued" | "declined" | "ignored" | "cancelled" | "failed";

/** A webhook delivery as it arrived: enough to decide about it later, in this process or the next. */
export interface NewTrigger {
  /** `X-GitHub-Delivery`: a redelivery is recorded once. */
  delivery: string;
  /** The event name, with its action: `issues.labeled`. */
  event: string;
  installationId: number;
  owner: string;
  repo: string;
  /** The issue or pull request it is about. */
  number: number;
  /** The webhook payload as GitHub sent it: the title and body as they were at the trigger. */
  payload: Record<string, unknown>;
  /** When it arrived (ms since the epoch). */
  receivedAt: number;
}

/** A recorded trigger. */
export interface TriggerRecord extends NewTrigger {
  outcome: TriggerOutcome | null;
  /** Why, in plain words (for a queued trigger, the job it queued). */
  detail: string | null;
  decidedAt: number | null;
}

interface Row {
  delivery: string;
  event: string;
  installation_id: number;
  owner: string;
  repo: string;
  number: number;
  payload: string;
  received_at: number;
  outcome: TriggerOutcome | null;
  detail: string | null;
  decided_at: number | null;
}

/** Every webhook the app acted on or passed over, with what it decided and why: no trigger is dropped without a trace. */
export class TriggerStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** The database file (for messages). */
  get file(): string {
    return this.db.name;
  }

  /** Creates the table if it is missing; a separate step, so a start-up that finds the database locked can retry it. */
  createTables(): void {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS triggers (
        delivery TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        installation_id INTEGER NOT NULL,
        owner TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        payload TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        outcome TEXT,
        detail TEXT,
        decided_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS triggers_undecided ON triggers (outcome) WHERE outcome IS NULL;
    `);
  }

  /**
   * Records a delivery to be decided; false when it was recorded before (a redelivery), which must not act twice. A
   * delivery whose decision failed (GitHub was down) is taken again: redelivering it from GitHub is how it is retried.
   */
  record(trigger: NewTrigger): boolean {
    const info = this.db
      .prepare(
        `INSERT INTO triggers (delivery, event, installation_id, owner, repo, number, payload, received_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (delivery) DO UPDATE SET outcome = NULL, detail = NULL, decided_at = NULL WHERE outcome = 'failed'`,
      )
      .run(trigger.delivery, trigger.event, trigger.installationId, trigger.owner, trigger.repo, trigger.number, JSON.stringify(trigger.payload), trigger.receivedAt);
    return info.changes > 0;
  }

  /**
   * Records what was decided about a delivery, and why. The payload (an issue body can run to 65k characters) is kept
   * only while it may be needed again: for a trigger not decided yet, or one whose decision failed.
   */
  decide(delivery: string, outcome: TriggerOutcome, detail: string): void {
    this.db
      .prepare("UPDATE triggers SET outcome = ?, detail = ?, decided_at = ?, payload = CASE WHEN ? = 'failed' THEN payload ELSE '{}' END WHERE delivery = ?")
      .run(outcome, detail, this.now(), outcome, delivery);
  }

  /** One trigger by its delivery id. */
  get(delivery: string): TriggerRecord | null {
    const row = this.db.prepare("SELECT * FROM triggers WHERE delivery = ?").get(delivery) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** The triggers not decided yet (an earlier process stopped before it decided them), oldest first. */
  undecided(): TriggerRecord[] {
    return (this.db.prepare("SELECT * FROM triggers WHERE outcome IS NULL ORDER BY received_at, rowid").all() as Row[]).map(toRecord);
  }

  /** Every trigger, oldest first. */
  all(): TriggerRecord[] {
    return (this.db.prepare("SELECT * FROM triggers ORDER BY received_at, rowid").all() as Row[]).map(toRecord);
  }
}

function toRecord(row: Row): TriggerRecord {
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
