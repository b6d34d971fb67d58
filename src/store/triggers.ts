/**
 * What became of a webhook: not decided yet (`null`), a job was queued, it was answered without a job (declined:
 * busy, no permission, a broken config), ignored without a word (not for the app), a job was cancelled by it, or
 * the decision itself failed (GitHub unreachable, say).
 */
export type TriggerOutcome = "queued" | "declined" | "ignored" | "cancelled" | "failed";

/** What a trigger came to, and why in plain words; recorded with the delivery. */
export interface Decision {
  outcome: TriggerOutcome;
  detail: string;
}

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
