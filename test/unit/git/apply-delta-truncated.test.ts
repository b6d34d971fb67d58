import { describe, expect, it } from "vitest";
import { applyDelta } from "../../../src/git/pack/apply-delta.js";

// A delta whose last copy instruction announces offset bytes the delta does not hold.
describe("applyDelta on a delta cut inside its last copy instruction", () => {
  it("refuses it instead of returning a result it never wrote", () => {
    const base = Buffer.from("def greet(name):\n    return 'hello ' + name\n");
    // Header: base size, result size 0x10000 (three 7-bit groups); then 0x81 = copy with offset byte 0, and the delta ends.
    const delta = Buffer.from([base.length, 0x80, 0x80, 0x04, 0x81]);
    expect(() => applyDelta(base, delta)).toThrow(/^corrupt pack: /);
  });
});
