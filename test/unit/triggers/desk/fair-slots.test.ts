import { describe, expect, it } from "vitest";
import { FairSlots } from "../../../../src/triggers/desk/fair-slots.js";

describe("FairSlots", () => {
  it("runs at most its size at once, and gives each freed slot to the next owner in turn", async () => {
    const slots = new FairSlots(2);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(name);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    // A burst of ten from installation a, then one from b and one from c.
    const runs = [...Array.from({ length: 10 }, (_, i) => slots.run("a", task(`a${i}`))), slots.run("b", task("b0")), slots.run("c", task("c0"))];
    await Promise.all(runs);
    expect(most).toBe(2);
    // The first two took the free slots; then a, b and c take turns, a's tasks in their order.
    expect(order.slice(0, 5)).toEqual(["a0", "a1", "a2", "b0", "c0"]);
    expect(order.filter((name) => name.startsWith("a"))).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));
  });
});
