import { describe, expect, it } from "vitest";
import { estimateTokens, UsageLedger } from "../../../src/llm/usage-ledger.js";

const models = { custodian: "c", manager: "m", developer: "d", qa: "q" };
const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });

describe("UsageLedger", () => {
  it("admits a call only while spent + held + its estimate stay within the budget", () => {
    const ledger = new UsageLedger(1000, models);
    expect(ledger.hold(600)).toBe(true);
    expect(ledger.hold(401)).toBe(false);
    expect(ledger.hold(400)).toBe(true);
    ledger.settle("qa", 600, usage(100, 50));
    ledger.settle("qa", 400, usage(10, 5));
    expect(ledger.spent).toBe(165);
    expect(ledger.hold(835)).toBe(true);
    expect(ledger.hold(1)).toBe(false);
  });

  it("books calls and tokens per agent, failed calls with zero tokens", () => {
    const ledger = new UsageLedger(10_000, models);
    ledger.hold(10);
    ledger.settle("developer", 10, usage(7, 3));
    ledger.hold(10);
    ledger.settle("developer", 10, usage(0, 0));
    const stats = ledger.stats();
    expect(stats).toMatchObject({ calls: 2, promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect(stats.byAgent.developer).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10, calls: 2, model: "d" });
    expect(stats.byAgent.manager.calls).toBe(0);
  });

  it("estimates ASCII at four characters a token, rounding up, and other characters at their UTF-8 bytes", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcde")).toBe(2);
    // Cyrillic: 2 bytes; CJK: 3; an emoji or a CJK Extension B character: 4 (two UTF-16 code units).
    expect(estimateTokens("Ошибка")).toBe(12);
    expect(estimateTokens("日期解析失败")).toBe(18);
    expect(estimateTokens("🐛𠀀")).toBe(8);
    expect(estimateTokens("parse 日期 fails")).toBe(Math.ceil(12 / 4) + 6);
  });
});

describe("UsageLedger with a cost limit", () => {
  const prices = new Map([
    ["c", { prompt: 1, completion: 2 }],
    ["d", { prompt: 10, completion: 20 }],
  ]);

  it("counts each agent's tokens at its model's price and admits a call only while its dollars fit", () => {
    const ledger = new UsageLedger(10_000_000, models, { usd: 0.05, from: "config", prices });
    expect(ledger.dollars("developer", { promptTokens: 1000, completionTokens: 1000 })).toBeCloseTo(0.03);
    expect(ledger.hold(2000, 0.03)).toBe(true);
    expect(ledger.fitsUsd(0.021)).toBe(false);
    expect(ledger.hold(10, 0.021)).toBe(false);
    expect(ledger.reservedUsd).toBeCloseTo(0.03);
    // It used less than it held: only what it used is spent.
    ledger.settle("developer", 2000, usage(500, 500), 0.03);
    expect(ledger.spentUsd).toBeCloseTo(0.015);
    ledger.hold(10, 0);
    ledger.settle("custodian", 10, usage(1000, 0));
    expect(ledger.spentUsd).toBeCloseTo(0.016);
    expect(ledger.fitsUsd(0.034)).toBe(true);
    expect(ledger.fitsUsd(0.035)).toBe(false);
  });

  it("keeps no dollars without a limit", () => {
    const ledger = new UsageLedger(1000, models);
    expect(ledger.dollars("developer", { promptTokens: 1000, completionTokens: 1000 })).toBe(0);
    expect(ledger.fitsUsd(1e9)).toBe(true);
  });
});
