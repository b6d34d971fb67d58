import { describe, expect, it } from "vitest";
import { showIssue } from "../../../src/pipeline/format-issue.js";
import { makePlan } from "../../../src/pipeline/plan/make-plan.js";
import type { FileTask } from "../../../src/pipeline/types.js";
import { testContext } from "./context.js";
import { fakeLlm } from "./fake-llm.js";

const issue = showIssue({ title: "t", body: "b", hints: [] });
const tasks: FileTask[] = ["a.js", "b.js", "c.js"].map((path) => ({ path, description: `fix ${path}` }));
const transcript = [{ speaker: "Manager", text: "go" }];

describe("makePlan", () => {
  it("returns the Manager's valid plan", async () => {
    const llm = fakeLlm({ "manager-make-plan": () => ({ steps: [["a.js", "b.js"], ["c.js"]], rationale: "c uses a" }) });
    expect(await makePlan(testContext(llm), issue, tasks, transcript)).toEqual({ steps: [["a.js", "b.js"], ["c.js"]], rationale: "c uses a" });
    expect(llm.calls[0]!.vars.feedback).toContain("first plan");
  });

  it("sends an invalid plan back once with every problem named, and takes the repaired one", async () => {
    const answers = [
      { steps: [["a.js", "z.js"], ["a.js"]], rationale: "oops" },
      { steps: [["a.js", "b.js", "c.js"]], rationale: "all independent" },
    ];
    const llm = fakeLlm({ "manager-make-plan": (_vars, n) => answers[n] });
    const plan = await makePlan(testContext(llm), issue, tasks, transcript);
    expect(plan).toEqual({ steps: [["a.js", "b.js", "c.js"]], rationale: "all independent" });
    const feedback = String(llm.calls[1]!.vars.feedback);
    expect(feedback).toContain('step 1 names "z.js", which is not a task');
    expect(feedback).toContain('"a.js" appears more than once (steps 1 and 2)');
    expect(feedback).toContain('"b.js" is missing');
    expect(feedback).toContain('"c.js" is missing');
    expect(feedback).toContain('Use each of these file paths exactly once: "a.js", "b.js", "c.js"');
  });

  it("falls back to a sequential plan after a second invalid plan and says why", async () => {
    const llm = fakeLlm({ "manager-make-plan": () => ({ steps: [["a.js"]], rationale: "forgot some" }) });
    const plan = await makePlan(testContext(llm), issue, tasks, transcript);
    expect(llm.calls).toHaveLength(2);
    expect(plan.steps).toEqual([["a.js"], ["b.js"], ["c.js"]]);
    expect(plan.note).toContain("invalid twice");
    expect(plan.note).toContain('"b.js" is missing');
  });

  it("does not ask the Manager to order a single task", async () => {
    const llm = fakeLlm({});
    expect((await makePlan(testContext(llm), issue, tasks.slice(0, 1), transcript)).steps).toEqual([["a.js"]]);
    expect(llm.calls).toHaveLength(0);
  });
});
