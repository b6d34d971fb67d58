import { describe, expect, it } from "vitest";
import { checkRanges } from "../../../src/pipeline/code/check-ranges.js";

describe("checkRanges", () => {
  it("sorts valid ranges", () => {
    expect(
      checkRanges(
        [
          { start: 8, end: 9 },
          { start: 1, end: 3 },
        ],
        10,
      ),
    ).toEqual({
      ok: true,
      ranges: [
        { start: 1, end: 3 },
        { start: 8, end: 9 },
      ],
    });
  });

  it("accepts a range ending on the last line", () => {
    expect(checkRanges([{ start: 10, end: 10 }], 10).ok).toBe(true);
  });

  it("refuses no range as an empty change", () => {
    expect(checkRanges([], 10)).toEqual({ ok: false, error: expect.stringContaining("no line range") });
  });

  it("refuses a range past the end and says how long the file is", () => {
    expect(checkRanges([{ start: 9, end: 12 }], 10)).toEqual({ ok: false, error: "range 9-12 is outside the file, which has 10 lines" });
  });

  it("refuses reversed, zero and fractional ranges", () => {
    for (const r of [
      { start: 5, end: 4 },
      { start: 0, end: 2 },
      { start: 1.5, end: 2 },
    ]) {
      expect(checkRanges([r], 10)).toEqual({ ok: false, error: expect.stringContaining("is not a valid range") });
    }
  });

  it("refuses overlapping ranges, naming both", () => {
    expect(
      checkRanges(
        [
          { start: 6, end: 10 },
          { start: 3, end: 6 },
        ],
        10,
      ),
    ).toEqual({
      ok: false,
      error: "ranges 3-6 and 6-10 overlap; merge them into one range or make them disjoint",
    });
  });
});
