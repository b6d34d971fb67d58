import { z } from "zod";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import type { Llm } from "../../../src/llm/types.js";
import { countUsage } from "../../../src/pipeline/report/count-usage.js";

const answering: Llm = {
  async ask(request) {
    return { value: request.schema!.parse({ ok: true }), usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 } };
  },
};
const schema = z.object({ ok: z.boolean() });

describe("countUsage", () => {
  it("counts calls and tokens per agent of the calls that pass through it", async () => {
    const counted = countUsage(answering, parseConfig({ model: "m-all", models: { qa: "m-qa" } }));
    await counted.llm.ask({ agent: "qa", prompt: "qa-review", vars: {}, schema });
    await counted.llm.ask({ agent: "qa", prompt: "qa-review", vars: {}, schema });
    await counted.llm.ask({ agent: "manager", prompt: "manager-make-plan", vars: {}, schema });
    const { byAgent, calls, wallMs } = counted.report(1500);
    expect([calls, wallMs]).toEqual([3, 1500]);
    expect(byAgent.qa).toEqual({ calls: 2, promptTokens: 14, completionTokens: 6, totalTokens: 20, model: expect.any(String) });
    expect(byAgent.manager.calls).toBe(1);
    expect(byAgent.developer).toMatchObject({ calls: 0, totalTokens: 0 });
  });

  it("names the models the client reports, when it reports them", () => {
    const stats = () => ({ byAgent: { custodian: { model: "c" }, manager: { model: "m" }, developer: { model: "d" }, qa: { model: "q" } } });
    const counted = countUsage(Object.assign({}, answering, { stats }), parseConfig({}));
    expect(Object.values(counted.report(0).byAgent).map((a) => a.model)).toEqual(["c", "m", "d", "q"]);
  });
});
