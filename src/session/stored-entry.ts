import type { SessionRow } from "../store/sessions.js";
import type { StoredSessionEntry } from "./types.js";

/** A stored row as the entry it holds (the page, the stream and the CLI's file read entries; the store keeps rows). */
export function storedEntry(row: Pick<SessionRow, "seq" | "at" | "kind" | "data">): StoredSessionEntry {
  return { kind: row.kind, data: JSON.parse(row.data) as unknown, seq: row.seq, at: row.at } as StoredSessionEntry;
}
