import { afterEach, describe, expect, it } from "vitest";
import { reply, startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { createLlm } from "../../../src/llm/client.js";
import { clientFor, fixturePrompts, judgeRequest } from "./client-setup.js";
import { modelSettings } from "../../support/model-settings.js";

describe("structured calls over HTTP", () => {
  let model: ScriptedModel;
  afterEach(async () => {
    expect(model.problems).toEqual([]);
    await model.close();
  });

  it("asks with response_format json_schema and returns the validated answer with its usage", async () => {
    model = await startScriptedModel();
    model.script("judge-file", reply.json({ relevant: true, reason: "dates" }, { usage: { promptTokens: 40, completionTokens: 9 } }));
    const llm = clientFor(model);
    const result = await llm.ask(judgeRequest);
    expect(result).toEqual({ value: { relevant: true, reason: "dates" }, usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49 } });
    const [request] = model.requests;
    expect(request?.prompt).toBe("judge-file");
    expect(request?.agent).toBe("custodian");
    expect(request?.model).toBe("scripted-model");
    expect(request?.maxTokens).toBe(4096);
    expect(request?.responseFormat).toMatchObject({ type: "json_schema", json_schema: { name: "judge-file", strict: true } });
    expect(request?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request?.messages[1]?.content).toContain("File `src/date.ts`:\nParses ISO dates.");
  });

  it("reads the answer of a server that ignores json_schema and wraps JSON in prose and a fence", async () => {
    model = await startScriptedModel({ honourJsonSchema: false });
    model.script("judge-file", { relevant: false, reason: "unrelated" });
    const result = await clientFor(model).ask(judgeRequest);
    expect(result.value).toEqual({ relevant: false, reason: "unrelated" });
    expect(model.requests).toHaveLength(1);
  });

  it("switches to plain JSON mode for good when the server refuses response_format", async () => {
    model = await startScriptedModel({ rejectResponseFormat: true });
    model.script("judge-file", { relevant: true, reason: "a" }, { relevant: true, reason: "b" });
    const llm = clientFor(model);
    expect((await llm.ask(judgeRequest)).value.reason).toBe("a");
    expect((await llm.ask(judgeRequest)).value.reason).toBe("b");
    expect(model.requests.map((r) => r.hasResponseFormat)).toEqual([true, false, false]);
    expect(model.requests[1]?.messages[1]?.content).toMatch(/It must match this JSON Schema:\n\{.*"relevant".*\}/);
    expect(llm.structuredOutput).toBe("json");
    expect(llm.trace[0]?.error).toMatch(/refused the request \(400 Unsupported parameter: 'response_format'\); trying again switching to plain JSON mode/);
  });

  it("sends max_completion_tokens to a server that refuses max_tokens, as OpenAI's reasoning models do", async () => {
    model = await startScriptedModel();
    const refusal = { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." } };
    model.script("judge-file", (r) => (r.body.max_tokens === undefined ? { relevant: true, reason: "ok" } : reply.status(400, refusal)));
    const llm = clientFor(model);
    await llm.ask(judgeRequest);
    await llm.ask(judgeRequest);
    expect(model.requests.map((r) => [r.body.max_tokens, r.body.max_completion_tokens])).toEqual([
      [4096, undefined],
      [undefined, 4096],
      [undefined, 4096],
    ]);
    expect(model.requests.every((r) => r.hasResponseFormat)).toBe(true);
  });

  it("stops after one change of dialect when the server refuses every request", async () => {
    model = await startScriptedModel();
    model.script("judge-file", () => reply.status(400, { error: { message: "context length exceeded" } }));
    const llm = clientFor(model);
    await expect(llm.ask(judgeRequest)).rejects.toThrow(/answered 400 after 1 try \(server said: context length exceeded\)\. .*lower top_k/);
    expect(model.requests.map((r) => r.hasResponseFormat)).toEqual([true, false]);
    expect(llm.structuredOutput).toBe("json_schema");
  });

  it("uses plain JSON mode from the start when MAGIS_STRUCTURED_OUTPUT=json", async () => {
    model = await startScriptedModel({ honourJsonSchema: false });
    model.script("judge-file", { relevant: true, reason: "x" });
    const llm = clientFor(model, { settings: modelSettings({ MAGIS_STRUCTURED_OUTPUT: "json" }) });
    expect((await llm.ask(judgeRequest)).value.relevant).toBe(true);
    expect(model.requests[0]?.hasResponseFormat).toBe(false);
  });

  it("retries once with the validation error shown to the model, then succeeds", async () => {
    model = await startScriptedModel();
    model.script("judge-file", { relevant: "yes", reason: "x" }, { relevant: true, reason: "x" });
    const llm = clientFor(model);
    const result = await llm.ask(judgeRequest);
    expect(result.value).toEqual({ relevant: true, reason: "x" });
    const retry = model.requests[1]!.messages;
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry[2]?.content).toBe('{"relevant":"yes","reason":"x"}');
    expect(retry[3]?.content).toMatch(/could not be used: the JSON does not match[\s\S]*expected boolean[\s\S]*at relevant/);
    expect(result.usage.totalTokens).toBe(llm.stats().totalTokens);
  });

  it("throws a clear error after garbage twice, never an unvalidated object", async () => {
    model = await startScriptedModel();
    model.script("judge-file", reply.text("I think it is relevant."), reply.text('{"relevant": "maybe"}'));
    const llm = clientFor(model);
    const failure = llm.ask(judgeRequest);
    await expect(failure).rejects.toMatchObject({ name: "LlmError", kind: "invalid-answer", agent: "custodian", prompt: "judge-file" });
    await expect(failure).rejects.toThrow(
      /custodian call with prompt "judge-file".*did not fit the expected format, twice[\s\S]*at relevant[\s\S]*stronger model/,
    );
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages[3]?.content).toContain("holds no JSON object or array");
    expect(llm.trace.map((t) => t.error !== undefined)).toEqual([true, true]);
  });

  it("says when the answer was cut off at max_tokens", async () => {
    model = await startScriptedModel();
    model.script("judge-file", reply.text('{"relevant": tr', { finishReason: "length" }), reply.text('{"rel', { finishReason: "length" }));
    await expect(clientFor(model, { maxTokens: 64 }).ask(judgeRequest)).rejects.toThrow(/cut off at max_tokens = 64; raise MAGIS_LLM_MAX_TOKENS/);
    expect(model.requests[0]?.maxTokens).toBe(64);
  });

  it("talks to a local server without an API key, and refuses to start for OpenAI itself without one", async () => {
    model = await startScriptedModel();
    model.script("judge-file", { relevant: true, reason: "local" });
    const llm = createLlm({ settings: modelSettings({ OPENAI_BASE_URL: model.url }), promptsDir: fixturePrompts });
    expect((await llm.ask(judgeRequest)).value.reason).toBe("local");
    expect(model.requests[0]?.model).toBe("gpt-4o-mini");
    expect(() => createLlm({ settings: modelSettings() })).toThrow(
      "OPENAI_API_KEY is not set. Set it, or set OPENAI_BASE_URL to an OpenAI-compatible server that needs no key.",
    );
  });

  it("refuses a prompt asked by the wrong agent or with a missing variable, before any request", async () => {
    model = await startScriptedModel();
    const llm = clientFor(model);
    await expect(llm.ask({ ...judgeRequest, agent: "qa" })).rejects.toMatchObject({
      kind: "prompt",
      message: expect.stringContaining("belongs to the custodian"),
    });
    await expect(llm.ask({ ...judgeRequest, vars: { path: "a.ts" } })).rejects.toThrow(/Prompt "judge-file": variable "summary" is missing/);
    expect(model.requests).toHaveLength(0);
  });
});
