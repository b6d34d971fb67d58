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

/** Whether the job has ended: an outcome other than `waiting` was recorded. */
export function hasEnded(session: readonly StoredSessionEntry[]): boolean {
  const outcome = lastOf(session, "outcome");
  return outcome !== undefined && outcome.data.status !== "waiting";
}
