import { describe, expect, it } from "vitest";
import { costBudgetOf } from "../../../src/llm/llm-settings.js";
import { dollarsOf, formatDollars, parseModelPrices, readDollars } from "../../../src/llm/prices.js";

describe("parseModelPrices", () => {
  it("reads MODEL=PROMPT/COMPLETION entries, models named with slashes, colons and equals signs included", () => {
    const prices = parseModelPrices(" gpt-4o=2.50/10.00, gpt-4o-mini=0.15/.6,meta-llama/Llama-3.1-70B=0/0, qwen2.5:7b=1/2 ,a=b=3/4,");
    expect([...prices]).toEqual([
      ["gpt-4o", { prompt: 2.5, completion: 10 }],
      ["gpt-4o-mini", { prompt: 0.15, completion: 0.6 }],
      ["meta-llama/Llama-3.1-70B", { prompt: 0, completion: 0 }],
      ["qwen2.5:7b", { prompt: 1, completion: 2 }],
      ["a=b", { prompt: 3, completion: 4 }],
    ]);
    expect(parseModelPrices("").size).toBe(0);
    expect(parseModelPrices(" , ").size).toBe(0);
  });

  it.each(["gpt-4o", "gpt-4o=2.5", "=1/2", "gpt-4o=1/2/3", "gpt-4o=1/x", "gpt-4o=-1/2", "gpt-4o=1e3/2", "gpt-4o=0x10/2", "gpt-4o= /2"])(
    "refuses '%s', quoting the entry and showing the format",
    (entry) => {
      expect(() => parseModelPrices(`gpt-4o-mini=0.15/0.60,${entry}`)).toThrow(
        `MAGIS_MODEL_PRICES holds '${entry.trim()}', which is not a price: write MODEL=PROMPT/COMPLETION entries separated by commas, in US dollars per million tokens, e.g. gpt-4o=2.50/10.00,gpt-4o-mini=0.15/0.60`,
      );
    },
  );

  it("refuses a model priced twice, naming it and the source", () => {
    expect(() => parseModelPrices("gpt-4o=2.5/10,gpt-4o-mini=0.15/0.6, gpt-4o =3/12", "--prices")).toThrow(
      /^--prices prices gpt-4o twice: keep one entry for it/,
    );
  });
});

describe("dollars", () => {
  it("prices tokens per million, and knows no price for a model the table lacks", () => {
    const prices = parseModelPrices("m=2/8");
    expect(dollarsOf({ promptTokens: 1_000_000, completionTokens: 500_000 }, "m", prices)).toBe(6);
    expect(dollarsOf({ promptTokens: 10, completionTokens: 10 }, "other", prices)).toBeUndefined();
    expect(dollarsOf({ promptTokens: 10, completionTokens: 10 }, "m", undefined)).toBeUndefined();
  });

  it("shows cents, four digits under a cent, and never a cheap run as $0.00", () => {
    expect([0, 0.5, 12.345, 0.0042, 0.00001].map(formatDollars)).toEqual(["$0.00", "$0.50", "$12.35", "$0.0042", "under $0.0001"]);
  });

  it("reads dollars as people write them, nothing else", () => {
    expect(["3", "0.15", ".15", "2.50 "].map(readDollars)).toEqual([3, 0.15, 0.15, 2.5]);
    expect(["", "-1", "1e3", "0x10", "Infinity", "1,5"].map(readDollars)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe("costBudgetOf", () => {
  it("takes the repository's budget below the operator's bound, the bound above it or alone, and none without either", () => {
    expect(costBudgetOf(0.5, 2)).toEqual({ usd: 0.5, from: "config", boundUsd: 2 });
    expect(costBudgetOf(0.5, undefined)).toEqual({ usd: 0.5, from: "config" });
    expect(costBudgetOf(5, 2)).toEqual({ usd: 2, from: "operator", boundUsd: 2 });
    expect(costBudgetOf(undefined, 2)).toEqual({ usd: 2, from: "operator", boundUsd: 2 });
    expect(costBudgetOf(undefined, undefined)).toBeUndefined();
  });
});
