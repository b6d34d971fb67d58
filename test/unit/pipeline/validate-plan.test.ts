import { describe, expect, it } from "vitest";
import { validatePlan } from "../../../src/pipeline/validate-plan.js";

const tasks = ["src/a.js", "src/b.js", "src/c.js"];

describe("validatePlan", () => {
  it("accepts every task exactly once and keeps the step order", () => {
    expect(validatePlan([["src/b.js"], ["src/a.js", "src/c.js"]], tasks)).toEqual({ ok: true, steps: [["src/b.js"], ["src/a.js", "src/c.js"]] });
  });

  it("normalizes ./ prefixes and backticks and drops empty steps", () => {
    expect(validatePlan([[], ["./src/a.js", "`src/b.js`"], [], ["src/c.js"]], tasks)).toEqual({ ok: true, steps: [["src/a.js", "src/b.js"], ["src/c.js"]] });
  });

  it("names an unknown task with its step", () => {
    const check = validatePlan(
      [
        ["src/a.js", "src/z.js"],
        ["src/b.js", "src/c.js"],
      ],
      tasks,
    );
    expect(check).toEqual({ ok: false, problems: ['step 1 names "src/z.js", which is not a task'] });
  });

  it("names a duplicate with both steps", () => {
    const check = validatePlan([["src/a.js"], ["src/b.js", "src/a.js"], ["src/c.js"]], tasks);
    expect(check).toEqual({ ok: false, problems: ['"src/a.js" appears more than once (steps 1 and 2)'] });
  });

  it("names every missing task", () => {
    const check = validatePlan([["src/b.js"]], tasks);
    expect(check).toEqual({ ok: false, problems: ['"src/a.js" is missing', '"src/c.js" is missing'] });
  });

  it("reports several problems at once", () => {
    const check = validatePlan([["x"], ["src/a.js", "src/a.js"]], tasks);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems).toHaveLength(4);
  });

  it("rejects an empty plan for a non-empty task list", () => {
    expect(validatePlan([], ["src/a.js"])).toEqual({ ok: false, problems: ['"src/a.js" is missing'] });
  });
});
