import type { StoredSessionEntry } from "../../session/types.js";
import type { SessionRow } from "../../store/sessions.js";

/** A stored row as the entry the page renders: its kind and parsed data, with its number and time. */
export function storedEntry(row: SessionRow): StoredSessionEntry {
  return { kind: row.kind, data: JSON.parse(row.data), seq: row.seq, at: row.at } as StoredSessionEntry;
}
