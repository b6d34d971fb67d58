import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { holdSqliteLock, longestStall, watchUnhandledRejections, type HeldLock } from "../support/hold-sqlite-lock.js";
import { INSTALLATION, useRig } from "./e2e-rig.js";
import { labeledPayload } from "./payloads.js";

const rig = useRig();
let held: HeldLock | undefined;
const unhandled = watchUnhandledRejections();
afterEach(() => {
  held?.release();
  held = undefined;
});
afterAll(() => unhandled.stop());

describe("a webhook while another process holds the job store's lock", () => {
  it("is answered 503 within about a second, recording nothing and keeping the event loop free, and is taken when redelivered", async () => {
    await rig.setUp({ brokenModel: true });
    held = holdSqliteLock(path.join(rig.root, "magis.db"));
    const payload = labeledPayload({ installationId: INSTALLATION });
    const { result: status, stallMs } = await longestStall(() => rig.app.deliver("issues", payload, "d-during-lock"));
    console.log(`longest event-loop stall while the app answered a webhook against a locked store: ${stallMs} ms`);
    expect(status).toBe(503);
    expect(rig.app.logs.some((line) => line.includes("JobStoreBusyError") && line.includes("redeliver it"))).toBe(true);
    held.release();
    expect(await rig.jobs()).toEqual([]);
    expect(await rig.app.deliver("issues", payload, "d-during-lock")).toBe(200);
    await rig.app.services.settled();
    expect((await rig.jobs()).map((j) => j.status)).toEqual(["failed"]);
    expect(unhandled.rejections).toEqual([]);
  });

  it("lets a trigger's decision wait out a lock longer than a webhook could, then queues its job", async () => {
    await rig.setUp({ brokenModel: true });
    const release = rig.github.hold();
    expect(await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-decide-locked")).toBe(200);
    // The decision is held at GitHub; the store is locked before it gets to submit the job, and stays locked 1.5 s.
    held = holdSqliteLock(path.join(rig.root, "magis.db"));
    release();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    held.release();
    await rig.app.services.settled();
    expect(await rig.app.services.triggers.get("d-decide-locked")).toMatchObject({ outcome: "queued" });
    expect((await rig.jobs()).map((j) => j.status)).toEqual(["failed"]);
    expect(unhandled.rejections).toEqual([]);
  });
});
