import { describe, expect, it } from "vitest";
import { mapBounded } from "../../../src/lib/map-bounded.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("mapBounded", () => {
  it("keeps the input order and never runs more than the bound at once", async () => {
    let running = 0;
    let most = 0;
    const out = await mapBounded([30, 10, 20, 5, 15], 2, async (ms, i) => {
      most = Math.max(most, ++running);
      await tick(ms);
      running--;
      return i * 10;
    });
    expect(out).toEqual([0, 10, 20, 30, 40]);
    expect(most).toBe(2);
  });

  it("starts nothing after a failure and rejects only once the calls already running have ended", async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const outcome = mapBounded([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 0) {
        await tick(5);
        throw new Error("the model failed");
      }
      await tick(40);
      ended.push(item);
      return item;
    });
    await expect(outcome).rejects.toThrow("the model failed");
    // Item 1 was running when item 0 failed: it finished before the rejection; nothing after it began.
    expect(started).toEqual([0, 1]);
    expect(ended).toEqual([1]);
  });

  it("maps an empty list to an empty list", async () => {
    expect(await mapBounded([], 3, async () => 1)).toEqual([]);
  });
});
