import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { TraceRecord } from "./types.js";

/** Writes trace records as JSON Lines (one record per line), creating the folder; replaces an existing file. */
export async function writeTraceJsonl(records: readonly TraceRecord[], file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, records.map((record) => JSON.stringify(record)).join("\n") + (records.length > 0 ? "\n" : ""), "utf8");
}
