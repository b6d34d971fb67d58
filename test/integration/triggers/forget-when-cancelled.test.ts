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

const file = { blobId: "a1", summary: "Parses.", text: "def parse(): pass\n" };
const note = { at: 1, kind: "note", data: '{"text":"late"}' };

/** A job of Octo/Widgets (as GitHub spells it) recorded in the store, and one of another repository with a session. */
async function recordJobs(opened: SqliteStore): Promise<{ job: JobRecord; other: JobRecord }> {
  const add = async (delivery: string, repo: string) =>
    (await opened.jobs.add({
      delivery,
      key: `octo/${repo.toLowerCase()}#3`,
      kind: "resolve-issue",
      installationId: 1,
      owner: "Octo",
      repo,
      number: 3,
      payload: {},
    }))!;
  const other = await add("d-other", "Gadgets");
  await opened.sessions.append(other.id, [note]);
  return { job: await add("d-job", "Widgets"), other };
}

/** A runner that writes a summary and a session entry once its job was cancelled, as a worker does until its next heartbeat, then stops. */
function lateWriter(opened: SqliteStore) {
  return async (job: JobRecord, progress: { signal: AbortSignal }): Promise<JobOutcome> => {
    await new Promise((resolve) => progress.signal.addEventListener("abort", resolve, { once: true }));
    await opened.memory.remember("octo/widgets", "src/late.py", file);
    await opened.sessions.append(job.id, [note]);
    throw progress.signal.reason;
  };
}

describe("forgetWhenCancelled", () => {
  it("forgets the job's repository in the memory and the sessions once a job cancelled because the app was uninstalled has ended, what it wrote after the cancel included", async () => {
    store = openSqliteStore(":memory:");
    await store.migrate();
    await store.memory.remember("octo/gadgets", "src/keep.py", file);
    const { job, other } = await recordJobs(store);
    const controller = new AbortController();
    const running = forgetWhenCancelled(lateWriter(store), store, { info: () => {}, warn: () => {} })(job, {
      stage: () => {},
      signal: controller.signal,
    });
    controller.abort(new Error(UNINSTALLED_REASON));
    await expect(running).rejects.toThrow(UNINSTALLED_REASON);
    expect(await store.memory.recall("octo/widgets", "src/late.py")).toBeNull();
    expect(await store.memory.recall("octo/gadgets", "src/keep.py")).toEqual(file);
    expect(await store.sessions.read(job.id)).toEqual([]);
    expect(await store.sessions.read(other.id)).toHaveLength(1);
  });

  it("keeps what a job cancelled for another reason wrote", async () => {
    store = openSqliteStore(":memory:");
    await store.migrate();
    const { job } = await recordJobs(store);
    const controller = new AbortController();
    const running = forgetWhenCancelled(lateWriter(store), store, { info: () => {}, warn: () => {} })(job, {
      stage: () => {},
      signal: controller.signal,
    });
    controller.abort(new Error("@octo closed the issue"));
    await expect(running).rejects.toThrow("@octo closed the issue");
    expect(await store.memory.recall("octo/widgets", "src/late.py")).toEqual(file);
    expect(await store.sessions.read(job.id)).toHaveLength(1);
  });
});
