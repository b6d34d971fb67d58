import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { BudgetExceededError } from "../../../src/llm/errors.js";
import { writeTraceJsonl } from "../../../src/llm/trace.js";
import type { TraceRecord } from "../../../src/llm/types.js";
import { reply, startScriptedModel, type ScriptedModel, type ScriptedRequest } from "../../support/scripted-model.js";
import { clientFor, fixturePrompts, judgeRequest, SECRET_KEY } from "./client-setup.js";
import { modelSettings } from "../../support/model-settings.js";

const answer = (usage: { promptTokens: number; completionTokens: number }) => reply.json({ relevant: true, reason: "r" }, { usage });

/**
 * The prompt tokens a server with OpenAI's cl100k tokenizer reports for these prompts: a quarter a character of ASCII,
 * 1.012 a common CJK character (60,720 for 60,000, as an audit saw), 3.93 a CJK Extension B character (measured).
 */
function cl100kTokens(request: ScriptedRequest): number {
  let tokens = 0;
  for (const { content } of request.messages) {
    for (const char of content) {
      const code = char.codePointAt(0)!;
      tokens += code < 0x80 ? 0.25 : code > 0xffff ? 3.93 : 1.012;
    }
  }
  return Math.ceil(tokens);
}
const counted = (request: ScriptedRequest) => answer({ promptTokens: cl100kTokens(request), completionTokens: 10 });

describe("token budget", () => {
  let model: ScriptedModel;
  afterEach(() => model.close());

  it("does not make the call that could pass the budget, and says how to raise it", async () => {
    model = await startScriptedModel();
    model.script("judge-file", answer({ promptTokens: 300, completionTokens: 200 }), answer({ promptTokens: 1, completionTokens: 1 }));
    // MAGIS_TOKEN_BUDGET wins over token_budget from the config file.
    const llm = clientFor(model, { maxTokens: 500, config: parseConfig({ token_budget: 400_000 }), settings: modelSettings({ MAGIS_TOKEN_BUDGET: "1000" }) });
    await llm.ask(judgeRequest);
    const failure = await llm.ask(judgeRequest).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(failure).toMatchObject({ kind: "budget", agent: "custodian", shortfall: { spent: 500, held: 0, budget: 1000 } });
    expect((failure as Error).message).toMatch(
      /The custodian call with prompt "judge-file" .*the request for judge-file would take about [\d,]+ tokens \(a prompt of about \d+ tokens, whose largest part is `summary` .*; an answer of up to 500\), and the job has 500 left of its token budget of 1,000 \(500 spent\), so it was not made\. Raise token_budget in \.github\/magis\.yml, or set the MAGIS_TOKEN_BUDGET/,
    );
    expect(model.requests).toHaveLength(1);
    expect(llm.trace.at(-1)).toMatchObject({ raw: null, ms: 0, error: expect.stringContaining("not made") });
  });

  it("names what made the refused request large: its prompt's largest part, and the answer cap", async () => {
    model = await startScriptedModel();
    const llm = clientFor(model, { maxTokens: 1000, tokenBudget: 200_000 });
    // A 920 KB text in a prompt, as a pasted attachment in an issue made it: about 230,000 tokens.
    const request = { ...judgeRequest, vars: { path: "src/date.ts", summary: "x".repeat(920_000) } };
    const failure = (await llm.ask(request).then(
      () => null,
      (error: unknown) => error,
    )) as BudgetExceededError;
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(failure.shortfall).toMatchObject({ spent: 0, held: 0, budget: 200_000, answerTokens: 1000, largest: { name: "summary", chars: 920_000 } });
    expect(failure.shortfall.promptTokens).toBeGreaterThan(230_000);
    expect(failure.message).toContain("the request for judge-file would take about 231,");
    expect(failure.message).toContain(
      "whose largest part is `summary` with 920,000 characters; an answer of up to 1,000), and the job has 200,000 left of its token budget of 200,000 (0 spent)",
    );
    expect(model.requests).toEqual([]);
  });

  it("counts calls still running, so concurrent calls cannot pass the budget together", async () => {
    model = await startScriptedModel({ latencyMs: 50 });
    model.script("judge-file", () => answer({ promptTokens: 10, completionTokens: 10 }));
    // Each call may need about 530 tokens (its prompt and schema, plus the 400-token cap): two fit in 1,200, three do not.
    const llm = clientFor(model, { maxTokens: 400, tokenBudget: 1200 });
    const results = await Promise.allSettled([llm.ask(judgeRequest), llm.ask(judgeRequest), llm.ask(judgeRequest)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    const refused = (results[2] as PromiseRejectedResult).reason as BudgetExceededError;
    expect(refused.shortfall).toMatchObject({ spent: 0, budget: 1200 });
    expect(refused.shortfall.held).toBe(2 * refused.shortfall.estimate);
    expect(refused.message).toContain(`held by calls still running`);
    expect(refused.shortfall.estimate * 2).toBeLessThanOrEqual(1200);
    expect(model.requests).toHaveLength(2);
    expect(llm.stats().totalTokens).toBe(40);
  });

  it("refuses before the call a prompt of 60,000 CJK characters against a budget of 20,000", async () => {
    model = await startScriptedModel();
    model.script("judge-file", counted);
    const llm = clientFor(model, { maxTokens: 1000, tokenBudget: 20_000 });
    const request = { ...judgeRequest, vars: { path: "src/date.ts", summary: "日期解析失败".repeat(10_000) } };
    const failure = (await llm.ask(request).then(
      () => null,
      (error: unknown) => error,
    )) as BudgetExceededError;
    expect(failure).toBeInstanceOf(BudgetExceededError);
    // Counted at their 3 UTF-8 bytes each: more than a byte-level tokenizer can make of them.
    expect(failure.shortfall.promptTokens).toBeGreaterThan(180_000);
    expect(failure.shortfall.largest).toEqual({ name: "summary", chars: 60_000 });
    expect(model.requests).toEqual([]);
    expect(llm.stats().totalTokens).toBe(0);
  });

  it("holds the budget for concurrent calls over text that is not ASCII: of two that fit alone but not together, one is refused", async () => {
    model = await startScriptedModel({ latencyMs: 50 });
    model.script("judge-file", counted);
    const llm = clientFor(model, { maxTokens: 1000, tokenBudget: 20_000 });
    // 4,000 CJK Extension B characters: each call may take about 17,000 tokens, and really takes 15,800.
    const request = { ...judgeRequest, vars: { path: "src/date.ts", summary: "𠀀".repeat(4000) } };
    const results = await Promise.allSettled([llm.ask(request), llm.ask(request)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    const refused = (results[1] as PromiseRejectedResult).reason as BudgetExceededError;
    expect(refused).toBeInstanceOf(BudgetExceededError);
    expect(refused.shortfall).toMatchObject({ spent: 0, held: refused.shortfall.estimate, budget: 20_000 });
    expect(refused.shortfall.estimate).toBeLessThanOrEqual(20_000);
    expect(model.requests).toHaveLength(1);
    expect(llm.stats().totalTokens).toBeGreaterThan(15_000);
    expect(llm.stats().totalTokens).toBeLessThanOrEqual(20_000);
  });
});

describe("stats and trace", () => {
  let model: ScriptedModel;
  afterEach(() => model.close());

  it("counts calls and tokens per agent, with each agent's model", async () => {
    model = await startScriptedModel();
    model.script("judge-file", answer({ promptTokens: 30, completionTokens: 5 }), reply.text("nope"), answer({ promptTokens: 20, completionTokens: 4 }));
    const llm = clientFor(model, { config: parseConfig({ model: "base", models: { qa: "reviewer" } }) });
    await llm.ask(judgeRequest);
    await llm.ask(judgeRequest);
    const stats = llm.stats();
    expect(stats).toMatchObject({ calls: 3, promptTokens: 50 + model.requests[1]!.messages.reduce((n, m) => n + m.content.length, 0) / 4 });
    expect(stats.byAgent.custodian).toMatchObject({ calls: 3, model: "base" });
    expect(stats.byAgent.qa).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, model: "reviewer" });
    expect(stats.totalTokens).toBe(stats.byAgent.custodian.totalTokens);
  });

  it("names the version of the prompt each record came from: the SHA-256 of the prompt file, first 12 hex digits", async () => {
    model = await startScriptedModel();
    model.script("judge-file", { relevant: true, reason: "first" });
    const llm = clientFor(model);
    await llm.ask(judgeRequest);
    const text = await readFile(join(fixturePrompts, "judge-file.md"));
    expect(llm.trace[0]?.promptHash).toBe(createHash("sha256").update(text).digest("hex").slice(0, 12));
  });

  it("leaves one record per call, passes each to onTrace, and writes them as JSON Lines without the key", async () => {
    model = await startScriptedModel();
    model.script("judge-file", { relevant: true, reason: "first" }, reply.text("garbage"), { relevant: false, reason: "second" }, reply.status(500));
    const seen: TraceRecord[] = [];
    const llm = clientFor(model, { maxRetries: 0, onTrace: (record) => seen.push(record) });
    await llm.ask(judgeRequest);
    await llm.ask(judgeRequest);
    await expect(llm.ask(judgeRequest)).rejects.toThrow(/500/);
    expect(llm.trace).toHaveLength(4);
    expect(seen).toEqual(llm.trace);
    const [ok, bad, fixed, failed] = llm.trace;
    expect(ok).toMatchObject({
      agent: "custodian",
      prompt: "judge-file",
      model: "scripted-model",
      raw: '{"relevant":true,"reason":"first"}',
      parsed: { relevant: true, reason: "first" },
    });
    expect(ok?.messages).toHaveLength(2);
    expect(ok?.ms).toBeGreaterThanOrEqual(0);
    expect(ok?.error).toBeUndefined();
    expect(bad).toMatchObject({ raw: "garbage", parsed: null, error: expect.stringContaining("no JSON") });
    expect(fixed?.messages).toHaveLength(4);
    expect(failed).toMatchObject({ raw: null, error: expect.stringContaining("answered 500") });

    const dir = await mkdtemp(join(tmpdir(), "magis-trace-"));
    try {
      const file = join(dir, "nested", "trace.jsonl");
      await writeTraceJsonl(llm.trace, file);
      const text = await readFile(file, "utf8");
      expect(
        text
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as TraceRecord),
      ).toEqual(llm.trace);
      expect(text).not.toContain(SECRET_KEY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
