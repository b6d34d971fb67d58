import { afterEach, describe, expect, it } from "vitest";
import { reply, startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { clientFor, judgeRequest } from "./client-setup.js";

const judged = (reason: string) => reply.json({ relevant: true, reason }, { usage: { promptTokens: 100, completionTokens: 10 } });
const sampled = { ...judgeRequest, samples: 3 };

describe("several answers to one prompt (samples, the API's n)", () => {
  let model: ScriptedModel;
  afterEach(() => model.close());

  it("asks a server that honours n once: its answers in order, the prompt's tokens counted once", async () => {
    model = await startScriptedModel();
    model.script("judge-file", judged("a"), judged("b"), judged("c"));
    const llm = clientFor(model);
    const result = await llm.ask(sampled);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.body.n).toBe(3);
    expect(result.sampled).toEqual({ values: ["a", "b", "c"].map((reason) => ({ relevant: true, reason })), requests: 1 });
    expect(result.value).toEqual({ relevant: true, reason: "a" });
    // One prompt of 100 tokens and three answers of 10, as the server reported them; the budget books the same.
    expect(result.usage).toEqual({ promptTokens: 100, completionTokens: 30, totalTokens: 130 });
    expect(llm.stats()).toMatchObject({ calls: 1, promptTokens: 100, completionTokens: 30, totalTokens: 130 });
    expect(llm.trace.map((t) => [t.choice, t.usage.totalTokens, (t.parsed as { reason: string }).reason])).toEqual([
      [0, 130, "a"],
      [1, 0, "b"],
      [2, 0, "c"],
    ]);
  });

  it("asks the rest one by one of a server that ignores n, and counts every request", async () => {
    model = await startScriptedModel({ ignoreN: true });
    model.script("judge-file", judged("a"), judged("b"), judged("c"));
    const llm = clientFor(model);
    const result = await llm.ask(sampled);
    expect(model.requests.map((r) => r.body.n)).toEqual([3, undefined, undefined]);
    expect(result.sampled).toEqual({ values: ["a", "b", "c"].map((reason) => ({ relevant: true, reason })), requests: 3 });
    expect(result.usage).toEqual({ promptTokens: 300, completionTokens: 30, totalTokens: 330 });
    expect(llm.stats()).toMatchObject({ calls: 3, totalTokens: 330 });
    expect(llm.trace.map((t) => t.choice)).toEqual([0, undefined, undefined]);
  });

  it("retries only the answer that does not fit, showing it its own answer", async () => {
    model = await startScriptedModel();
    model.script("judge-file", judged("a"), reply.text("not json"), judged("c"), judged("b again"));
    const llm = clientFor(model);
    const result = await llm.ask(sampled);
    expect(result.sampled?.values.map((v) => v.reason)).toEqual(["a", "b again", "c"]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.body.n).toBeUndefined();
    expect(model.requests[1]!.messages.at(-2)).toEqual({ role: "assistant", content: "not json" });
  });

  it("stops sending n to a server that refuses it, and samples one by one from then on", async () => {
    model = await startScriptedModel();
    model.script(
      "judge-file",
      reply.status(400, { error: { message: "'n' is not supported for this model", type: "invalid_request_error", param: "n" } }),
      ...["a", "b", "c", "d", "e"].map(judged),
    );
    const llm = clientFor(model);
    const first = await llm.ask({ ...judgeRequest, samples: 2 });
    const second = await llm.ask({ ...judgeRequest, samples: 2 });
    expect([first.sampled?.values.map((v) => v.reason), second.sampled?.values.map((v) => v.reason)]).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(model.requests.map((r) => r.body.n)).toEqual([2, undefined, undefined, undefined, undefined]);
    expect(llm.trace[0]!.error).toContain("asking for one answer a request (no n)");
  });
});
