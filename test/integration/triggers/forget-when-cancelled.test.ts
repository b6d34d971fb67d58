import { afterEach, describe, expect, it } from "vitest";
import { forgetWhenCancelled, UNINSTALLED_REASON } from "../../../src/triggers/rules/on-uninstalled.js";
import type { JobOutcome } from "../../../src/jobs/job-outcome.js";
import type { JobRecord } from "../../../src/store/jobs.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const job = { id: 1, owner: "Octo", repo: "Widgets", key: "octo/widgets#3" } as JobRecord;
const file = { blobId: "a1", summary: "Parses.", text: "def parse(): pass\n" };

/** A runner that writes a summary once its job was cancelled, as a worker does until its next heartbeat, then stops. */
function lateWriter(memory: SqliteStore["memory"]) {
  return async (_: JobRecord, progress: { signal: AbortSignal }): Promise<JobOutcome> => {
    await new Promise((resolve) => progress.signal.addEventListener("abort", resolve, { once: true }));
    await memory.remember("octo/widgets", "src/late.py", file);
    throw progress.signal.reason;
  };
}

describe("forgetWhenCancelled", () => {
  it("forgets the job's repository once a job cancelled because the app was uninstalled has ended, what it wrote after the cancel included", async () => {
    store = openSqliteStore(":memory:");
    await store.migrate();
    await store.memory.remember("octo/gadgets", "src/keep.py", file);
    const controller = new AbortController();
    const running = forgetWhenCancelled(lateWriter(store.memory), store.memory, { info: () => {}, warn: () => {} })(job, {
      stage: () => {},
      signal: controller.signal,
    });
    controller.abort(new Error(UNINSTALLED_REASON));
    await expect(running).rejects.toThrow(UNINSTALLED_REASON);
    expect(await store.memory.recall("octo/widgets", "src/late.py")).toBeNull();
    expect(await store.memory.recall("octo/gadgets", "src/keep.py")).toEqual(file);
  });

  it("keeps what a job cancelled for another reason wrote", async () => {
    store = openSqliteStore(":memory:");
    await store.migrate();
    const controller = new AbortController();
    const running = forgetWhenCancelled(lateWriter(store.memory), store.memory, { info: () => {}, warn: () => {} })(job, {
      stage: () => {},
      signal: controller.signal,
    });
    controller.abort(new Error("@octo closed the issue"));
    await expect(running).rejects.toThrow("@octo closed the issue");
    expect(await store.memory.recall("octo/widgets", "src/late.py")).toEqual(file);
  });
});
