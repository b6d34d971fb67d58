import { describe, expect, it } from "vitest";
import { wholeNumberFrom } from "../../../src/lib/env-number.js";

const rule = { fallback: 60, min: 1, max: 3600, meaning: "the seconds to wait" };

describe("wholeNumberFrom", () => {
  it("reads digits, with underscores between them, around spaces; unset or blank is the fallback", () => {
    expect(wholeNumberFrom({ WAIT: "90" }, "WAIT", rule)).toBe(90);
    expect(wholeNumberFrom({ WAIT: " 1_200 " }, "WAIT", rule)).toBe(1200);
    expect(wholeNumberFrom({ WAIT: "0042" }, "WAIT", rule)).toBe(42);
    expect(wholeNumberFrom({}, "WAIT", rule)).toBe(60);
    expect(wholeNumberFrom({ WAIT: "" }, "WAIT", rule)).toBe(60);
    expect(wholeNumberFrom({ WAIT: "  " }, "WAIT", rule)).toBe(60);
    expect(wholeNumberFrom({ WAIT: "3600" }, "WAIT", rule)).toBe(3600);
    expect(wholeNumberFrom({ WAIT: "1" }, "WAIT", rule)).toBe(1);
  });

  it("refuses what Number() would let through: signs, fractions, exponents, hex, binary, stray underscores", () => {
    for (const bad of ["+5", "-5", "1.5", "5.", "1e3", "0x10", "0b11", "_5", "5_", "1__0", "5 s", "Infinity", "ten"]) {
      expect(() => wholeNumberFrom({ WAIT: bad }, "WAIT", rule), bad).toThrow(
        `WAIT is '${bad}': set it to the seconds to wait (a whole number, from 1 to 3600), or leave it unset for 60`,
      );
    }
  });

  it("quotes a value back only when it cannot be a secret set on the wrong line, and says what unset means", () => {
    for (const secret of ["postgres://magis:hunter2@db/magis", "sk-proj-abcdef0123456789", "hunter2:x", "ghp_0123456789abcdefghij"]) {
      const message = (() => {
        try {
          wholeNumberFrom({ WAIT: secret }, "WAIT", rule);
        } catch (error) {
          return (error as Error).message;
        }
        return "";
      })();
      expect(message).toBe(
        `WAIT holds ${secret.length} characters that are not such a number (not shown: they may be a secret set on the wrong line): set it to the seconds to wait (a whole number, from 1 to 3600), or leave it unset for 60`,
      );
    }
    expect(() =>
      wholeNumberFrom({ BUDGET: "lots" }, "BUDGET", {
        fallback: 400_000,
        min: 1000,
        meaning: "the tokens one job may spend",
        unset: "the repository's token_budget",
      }),
    ).toThrow("BUDGET is 'lots': set it to the tokens one job may spend (a whole number, 1000 or more), or leave it unset for the repository's token_budget");
  });

  it("refuses numbers outside the range, and past JavaScript's safe integers when there is no maximum", () => {
    expect(() => wholeNumberFrom({ WAIT: "0" }, "WAIT", rule)).toThrow("WAIT is '0'");
    expect(() => wholeNumberFrom({ WAIT: "3601" }, "WAIT", rule)).toThrow("WAIT is '3601'");
    const open = { fallback: 2, min: 1, meaning: "the jobs to run at once" };
    expect(wholeNumberFrom({ JOBS: "9007199254740991" }, "JOBS", open)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => wholeNumberFrom({ JOBS: "9007199254740993" }, "JOBS", open)).toThrow(
      "JOBS is '9007199254740993': set it to the jobs to run at once (a whole number, 1 or more), or leave it unset for 2",
    );
  });
});
