import { describe, expect, it } from "vitest";
import type { NewTrigger } from "../../src/store/triggers.js";
import { START, type ContractContext } from "./contract-context.js";

function newTrigger(delivery: string, receivedAt: number, overrides: Partial<NewTrigger> = {}): NewTrigger {
  return {
    delivery,
    event: "issues.labeled",
    installationId: 4_200_000_001,
    owner: "octo",
    repo: "widgets",
    number: 7,
    payload: { action: "labeled", issue: { number: 7, title: "Crash on empty input", body: "Steps: … ✓" } },
    receivedAt,
    ...overrides,
  };
}

/** The contract of the webhook triggers (TriggerStore). */
export function describeTriggerContract(context: ContractContext): void {
  const store = context.store;
  describe("triggers", () => {
    it("records a delivery to decide, and gives it back whole", async () => {
      const trigger = newTrigger("t-1", START - 500);
      expect(await store().triggers.record(trigger)).toBe(true);
      expect(await store().triggers.get("t-1")).toEqual({ ...trigger, outcome: null, detail: null, decidedAt: null });
      expect(await store().triggers.get("t-2")).toBeNull();
    });

    it("refuses a redelivery, undecided or decided, and keeps what it had", async () => {
      await store().triggers.record(newTrigger("t-1", START));
      expect(await store().triggers.record(newTrigger("t-1", START + 1, { payload: { other: true } }))).toBe(false);
      expect((await store().triggers.get("t-1"))?.payload).toEqual(newTrigger("t-1", START).payload);
      await store().triggers.decide("t-1", "queued", "job 1");
      expect(await store().triggers.record(newTrigger("t-1", START + 2))).toBe(false);
      expect(await store().triggers.get("t-1")).toMatchObject({ outcome: "queued", detail: "job 1", receivedAt: START });
    });

    it("takes a delivery whose decision failed again, undecided, with its payload", async () => {
      const trigger = newTrigger("t-1", START - 100);
      await store().triggers.record(trigger);
      await store().triggers.decide("t-1", "failed", "GitHub did not answer.");
      expect(await store().triggers.record(newTrigger("t-1", START + 100))).toBe(true);
      expect(await store().triggers.get("t-1")).toEqual({ ...trigger, outcome: null, detail: null, decidedAt: null });
      expect((await store().triggers.claimUndecided(0)).map((t) => t.delivery)).toEqual(["t-1"]);
      expect(await store().triggers.record(newTrigger("t-1", START + 200))).toBe(false);
    });

    it("records the decision and drops the payload, unless the decision failed", async () => {
      await store().triggers.record(newTrigger("t-1", START));
      await store().triggers.record(newTrigger("t-2", START));
      context.advance(250);
      await store().triggers.decide("t-1", "declined", "The sender may not trigger runs.");
      await store().triggers.decide("t-2", "failed", "GitHub did not answer.");
      // toEqual: toMatchObject would take any payload for {}.
      expect(await store().triggers.get("t-1")).toEqual({
        ...newTrigger("t-1", START),
        outcome: "declined",
        detail: "The sender may not trigger runs.",
        decidedAt: START + 250,
        payload: {},
      });
      expect(await store().triggers.get("t-2")).toEqual({
        ...newTrigger("t-2", START),
        outcome: "failed",
        detail: "GitHub did not answer.",
        decidedAt: START + 250,
      });
    });

    it("hands out the undecided triggers whose lease ran out, oldest first, leasing them to the claimant", async () => {
      // Recorded by a process that holds it a minute; the others by processes that held them not at all.
      await store().triggers.record(newTrigger("recent", START - 1_000), 60_000);
      await store().triggers.record(newTrigger("oldest", START - 60_000));
      await store().triggers.record(newTrigger("decided", START - 90_000));
      await store().triggers.record(newTrigger("old-a", START - 30_000));
      await store().triggers.record(newTrigger("old-b", START - 30_000));
      await store().triggers.decide("decided", "ignored", "Not for the app.");
      const claim = async () => (await store().triggers.claimUndecided(10_000)).map((t) => t.delivery);
      expect(await claim()).toEqual(["oldest", "old-a", "old-b"]);
      // Leased to the first claimant for 10 s: nobody else gets them meanwhile.
      expect(await claim()).toEqual([]);
      context.advance(10_000);
      expect(await claim()).toEqual(["oldest", "old-a", "old-b"]);
      context.advance(50_000);
      expect(await claim()).toEqual(["oldest", "old-a", "old-b", "recent"]);
      await store().triggers.decide("recent", "queued", "job 1");
      context.advance(10_000);
      expect(await claim()).toEqual(["oldest", "old-a", "old-b"]);
    });

    it("lists every trigger oldest first, decided or not", async () => {
      await store().triggers.record(newTrigger("b", START - 10));
      await store().triggers.record(newTrigger("c", START));
      await store().triggers.record(newTrigger("a", START - 20));
      await store().triggers.decide("b", "queued", "job 1");
      expect((await store().triggers.all()).map((t) => [t.delivery, t.outcome])).toEqual([
        ["a", null],
        ["b", "queued"],
        ["c", null],
      ]);
    });
  });
}
