import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { useRig } from "./e2e-rig.js";

const rig = useRig();

describe("sessions past MAGIS_SESSION_DAYS", () => {
  it("are removed when the app starts, those of jobs still queued kept", async () => {
    // What an earlier run of the app left in its file: a job that ended, with its session, and one still queued.
    const earlier = openSqliteStore(path.join(rig.root, "magis.db"));
    await earlier.migrate();
    const job = (n: number) => ({
      delivery: `d-${n}`,
      key: `octo/widgets#${n}`,
      kind: "resolve-issue",
      installationId: 1,
      owner: "octo",
      repo: "widgets",
      number: n,
      payload: {},
    });
    const ended = (await earlier.jobs.add(job(1)))!.id;
    await earlier.sessions.append(ended, [{ at: Date.now(), kind: "note", data: '{"text":"ended"}' }]);
    await earlier.jobs.fail(ended, "the model refused");
    const queued = (await earlier.jobs.add(job(2)))!.id;
    await earlier.sessions.append(queued, [{ at: Date.now(), kind: "note", data: '{"text":"queued"}' }]);
    await earlier.close();

    await rig.setUp({ brokenModel: true, env: { MAGIS_SESSION_DAYS: "0" } });
    const { sessions } = rig.app.services.store;
    await expect.poll(() => sessions.read(ended)).toEqual([]);
    expect(rig.app.logs.some((line) => line.includes("removed the sessions of 1 job that ended (MAGIS_SESSION_DAYS=0)"))).toBe(true);
    expect(await sessions.read(queued)).toHaveLength(1);
  });
});
