import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/backends/sqlite/database.js";
import { SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { sweepSessions } from "../../../src/app/sweep-sessions.js";
import { DAY_MS } from "../../../src/git/object-cache.js";
import type { Sweep } from "../../../src/app/sweep-work-folder.js";

const START = 1_750_000_000_000;
const note = { at: START, kind: "note", data: '{"text":"hi"}' };

describe("sweeping sessions past MAGIS_SESSION_DAYS", () => {
  let time = START;
  let store: SqliteStore;
  beforeEach(async () => {
    time = START;
    store = new SqliteStore(openDatabase(":memory:"), { now: () => time });
    await store.migrate();
  });
  const lines: string[] = [];
  const log = { info: (_: object, line: string) => void lines.push(line), warn: (_: object, line: string) => void lines.push(`warn: ${line}`) };
  let sweep: Sweep | undefined;
  afterEach(async () => {
    sweep?.stop();
    lines.length = 0;
    await store.close();
  });

  /** A job that ended (failed) at the store's time now, with one entry in its session. */
  async function endedJob(delivery: string): Promise<number> {
    const job = (await store.jobs.add({
      delivery,
      key: "octo/widgets#1",
      kind: "resolve-issue",
      installationId: 1,
      owner: "octo",
      repo: "widgets",
      number: 1,
      payload: {},
    }))!;
    await store.sessions.append(job.id, [note]);
    await store.jobs.fail(job.id, "the model refused");
    return job.id;
  }

  it("removes the sessions of jobs that ended more than the days set ago at once, then again every so often, and keeps the others", async () => {
    const old = await endedJob("d-old");
    time += 20 * DAY_MS;
    const recent = await endedJob("d-recent");
    time += 11 * DAY_MS;

    sweep = sweepSessions(store.sessions, 30, log, { everyMs: 20, now: () => time });
    await expect.poll(() => store.sessions.read(old)).toEqual([]);
    expect(await store.sessions.read(recent)).toHaveLength(1);
    expect(lines).toEqual(["removed the sessions of 1 job that ended more than 30 days ago (MAGIS_SESSION_DAYS)"]);

    // Twenty days on, the next sweep finds the second one old enough.
    time += 20 * DAY_MS;
    await expect.poll(() => store.sessions.read(recent)).toEqual([]);
    sweep.stop();
    await sleep(60);
    expect(lines).toHaveLength(2);
  });

  it("with 0 days, removes the session of every job that has ended, not of one that runs", async () => {
    const ended = await endedJob("d-zero-ended");
    const running = (await store.jobs.add({
      delivery: "d-zero-running",
      key: "octo/widgets#2",
      kind: "resolve-issue",
      installationId: 1,
      owner: "octo",
      repo: "widgets",
      number: 2,
      payload: {},
    }))!.id;
    await store.sessions.append(running, [note]);
    await store.jobs.start(running, "locate");
    time += 1;
    sweep = sweepSessions(store.sessions, 0, log, { now: () => time });
    await expect.poll(() => store.sessions.read(ended)).toEqual([]);
    expect(await store.sessions.read(running)).toHaveLength(1);
    expect(lines).toEqual(["removed the sessions of 1 job that ended (MAGIS_SESSION_DAYS=0)"]);
  });

  it("says a sweep failed and tries again at the next", async () => {
    let calls = 0;
    const failing = {
      prune: async () => {
        calls += 1;
        if (calls === 1) throw new Error("database is locked");
        return 0;
      },
    };
    sweep = sweepSessions(failing, 30, log, { everyMs: 10 });
    await expect.poll(() => calls).toBeGreaterThanOrEqual(2);
    expect(lines).toEqual(["warn: could not remove the sessions of jobs that ended more than 30 days ago (MAGIS_SESSION_DAYS); the next sweep tries again"]);
  });
});
