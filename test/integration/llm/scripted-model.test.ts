import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";

// The scripted model itself, driven by the raw SDK, so every other test can trust it.
describe("scripted model", () => {
  let model: ScriptedModel;
  afterEach(() => model.close());

  const client = (options: { maxRetries?: number; timeout?: number } = {}) =>
    new OpenAI({ apiKey: "sk-test", baseURL: model.url, maxRetries: options.maxRetries ?? 0, timeout: options.timeout ?? 5000 });
  const ask = (c: OpenAI, prompt: string, extra: Record<string, unknown> = {}) =>
    c.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "hello there" }], ...extra },
      { headers: { "X-Magis-Prompt": prompt, "X-Magis-Agent": "qa" } },
    );

  it("answers queued JSON per prompt name, in order, with OpenAI's shape", async () => {
    model = await startScriptedModel();
    model.script("a", { n: 1 }, { n: 2 }).script("b", reply.text("plain"));
    const c = client();
    const first = await ask(c, "a");
    expect(first.choices[0]?.message.content).toBe('{"n":1}');
    expect(first.choices[0]?.finish_reason).toBe("stop");
    expect(first.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect((await ask(c, "b")).choices[0]?.message.content).toBe("plain");
    expect((await ask(c, "a")).choices[0]?.message.content).toBe('{"n":2}');
    expect(model.requests.map((r) => [r.prompt, r.agent])).toEqual([
      ["a", "qa"],
      ["b", "qa"],
      ["a", "qa"],
    ]);
    expect(model.requests[0]?.headers.authorization).toBeUndefined();
    expect(model.pending()).toEqual({});
  });

  it("wraps JSON in prose and a fence when it does not honour json_schema", async () => {
    model = await startScriptedModel({ honourJsonSchema: false });
    model.script("a", { ok: true });
    const content = (await ask(client(), "a", { response_format: { type: "json_object" } })).choices[0]?.message.content ?? "";
    expect(content).toMatch(/^Sure!.*\n\n```json\n\{\n {2}"ok": true\n\}\n```/s);
    expect(model.requests[0]?.hasResponseFormat).toBe(true);
  });

  it("computes answers from the request with a function that stays queued", async () => {
    model = await startScriptedModel();
    model.script("echo", (r) => ({ said: r.messages[0]?.content }));
    const c = client();
    await ask(c, "echo");
    expect((await ask(c, "echo")).choices[0]?.message.content).toBe('{"said":"hello there"}');
  });

  it("fails loudly, without retries, when a prompt has no answer left", async () => {
    model = await startScriptedModel();
    await expect(ask(client({ maxRetries: 2 }), "missing")).rejects.toMatchObject({ status: 500 });
    expect(model.requests).toHaveLength(1);
    expect(model.problems[0]).toContain('no answer left for prompt "missing"');
  });

  it("injects 429 then 200, which the SDK retries", async () => {
    model = await startScriptedModel();
    model.script("a", reply.rateLimited(0), { ok: 1 });
    expect((await ask(client({ maxRetries: 2 }), "a")).choices[0]?.message.content).toBe('{"ok":1}');
    expect(model.requests).toHaveLength(2);
  });

  it("serves a malformed body, a delayed answer, a rejected response_format, and a hang that close() ends", async () => {
    model = await startScriptedModel({ rejectResponseFormat: true });
    model
      .script("bad", reply.malformed())
      .script("slow", reply.delay(20, { late: true }))
      .script("rf", { x: 1 })
      .script("hang", reply.hang());
    const c = client({ timeout: 200 });
    await expect(ask(c, "bad")).rejects.toThrow();
    expect((await ask(c, "slow")).choices[0]?.message.content).toBe('{"late":true}');
    await expect(ask(c, "rf", { response_format: { type: "json_object" } })).rejects.toMatchObject({ status: 400 });
    await expect(ask(c, "hang")).rejects.toThrow(/timed out/i);
  });
});
