import type { NewSessionRow } from "../../store/sessions.js";
import { storedEntry } from "../stored-entry.js";
import type { StoredSessionEntry } from "../types.js";

/** A session kept in memory: the sink of a recorder where there is no store (the CLI, eval), and its entries read back. */
export interface MemorySink {
  sink: (rows: NewSessionRow[]) => Promise<void>;
  /** The entries so far, numbered 1, 2, 3 … as a store numbers them. */
  entries(): StoredSessionEntry[];
}

/** A new, empty session in memory. */
export function memorySink(): MemorySink {
  const rows: NewSessionRow[] = [];
  return {
    sink: async (batch) => void rows.push(...batch),
    entries: () => rows.map((row, index) => storedEntry({ ...row, seq: index + 1 })),
  };
}
