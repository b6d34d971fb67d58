import { monitorEventLoopDelay } from "node:perf_hooks";
import { openDatabase } from "../../src/backends/sqlite/database.js";

/** Another connection holding a SQLite file's write lock, as a sqlite3 shell left in a transaction does. */
export interface HeldLock {
  release(): void;
}

/** Opens a second connection to `file` (creating it in WAL mode if needed) and takes the write lock until released. */
export function holdSqliteLock(file: string): HeldLock {
  // Through the store's own adapter, so the lock is held by whichever SQLite engine this Node runs.
  const other = openDatabase(file);
  other.exec("BEGIN IMMEDIATE");
  // A write of its own, so the lock is one a real writer holds (not only reserved).
  other.exec("CREATE TABLE IF NOT EXISTS held_by_test (x); INSERT INTO held_by_test VALUES (1)");
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      other.exec("ROLLBACK");
      other.close();
    },
  };
}

/** Runs `work` while measuring the event loop's longest stall, in milliseconds (printed by tests, never asserted). */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    const result = await work();
    return { result, stallMs: Math.round(histogram.max / 1e6) };
  } finally {
    histogram.disable();
  }
}

/** Collects the process's unhandled rejections from now until `stop` (a test asserts there were none). */
export function watchUnhandledRejections(): { rejections: unknown[]; stop(): void } {
  const rejections: unknown[] = [];
  const listener = (reason: unknown) => void rejections.push(reason);
  process.on("unhandledRejection", listener);
  return { rejections, stop: () => void process.off("unhandledRejection", listener) };
}
