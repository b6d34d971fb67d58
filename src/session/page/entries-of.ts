import type { StoredSessionEntry } from "../types.js";

/** A session's entries of one kind, in order, typed as that kind. */
export function entriesOf<K extends StoredSessionEntry["kind"]>(session: readonly StoredSessionEntry[], kind: K): Extract<StoredSessionEntry, { kind: K }>[] {
  return session.filter((entry): entry is Extract<StoredSessionEntry, { kind: K }> => entry.kind === kind);
}

/** The last entry of a kind, if any. */
export function lastOf<K extends StoredSessionEntry["kind"]>(
  session: readonly StoredSessionEntry[],
  kind: K,
): Extract<StoredSessionEntry, { kind: K }> | undefined {
  return entriesOf(session, kind).at(-1);
}

/** Outcomes after which the same job runs on: it waits (for a plan's approval), or a stopping worker handed it back to the queue. */
const NOT_FINAL: ReadonlySet<string> = new Set(["waiting", "handed-back"]);

/** Whether an outcome's status ends the job for good. */
export function isFinalOutcome(status: string): boolean {
  return !NOT_FINAL.has(status);
}

/**
 * The outcome of the job's latest run, if it has one. A job handed back runs again under the same id, and that run starts
 * with a new `job` entry, so an outcome before the last `job` entry says nothing of this run.
 */
export function currentOutcome(session: readonly StoredSessionEntry[]): Extract<StoredSessionEntry, { kind: "outcome" }> | undefined {
  for (let index = session.length - 1; index >= 0; index--) {
    const entry = session[index]!;
    if (entry.kind === "job") return undefined;
    if (entry.kind === "outcome") return entry;
  }
  return undefined;
}

/** Whether the job has ended: its latest run recorded a final outcome (not `waiting`, not `handed-back`). */
export function hasEnded(session: readonly StoredSessionEntry[]): boolean {
  const outcome = currentOutcome(session);
  return outcome !== undefined && isFinalOutcome(outcome.data.status);
}
