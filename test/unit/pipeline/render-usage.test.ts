import { describe, expect, it } from "vitest";
import { parseModelPrices } from "../../../src/llm/prices.js";
import { renderUsage } from "../../../src/pipeline/report/render-usage.js";
import type { UsageReport } from "../../../src/pipeline/types.js";

const used = (model: string, calls: number, promptTokens: number, completionTokens: number) => ({
  model,
  calls,
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

const usage: UsageReport = {
  calls: 7,
  wallMs: 4200,
  byAgent: {
    custodian: used("gpt-4o-mini", 4, 200_000, 10_000),
    manager: used("gpt-4o", 2, 20_000, 4_000),
    developer: used("gpt-4o", 1, 8_000, 2_000),
    qa: used("local-model", 0, 0, 0),
  },
};

describe("the report's usage table", () => {
  it("shows each priced agent's dollars and the total when every agent that made calls has a price", () => {
    const page = renderUsage(usage, parseModelPrices("gpt-4o=2.50/10.00,gpt-4o-mini=0.15/0.60"));
    expect(page).toContain("| Agent | Model | Calls | Prompt tokens | Completion tokens | Total tokens | Cost |");
    // 200k × 0.15 + 10k × 0.60 = $0.036; 20k × 2.5 + 4k × 10 = $0.09; 8k × 2.5 + 2k × 10 = $0.04.
    expect(page).toContain("| custodian | `gpt-4o-mini` | 4 | 200000 | 10000 | 210000 | $0.04 |");
    expect(page).toContain("| manager | `gpt-4o` | 2 | 20000 | 4000 | 24000 | $0.09 |");
    expect(page).toContain("| developer | `gpt-4o` | 1 | 8000 | 2000 | 10000 | $0.04 |");
    // The QA made no call: its model's missing price leaves its cell empty and the total whole.
    expect(page).toContain("| qa | `local-model` | 0 | 0 | 0 | 0 |  |");
    expect(page).toContain("| **total** |  | 7 |  |  | 244000 | **$0.17** |");
  });

  it("leaves the total's dollars out when an agent that made calls has no price", () => {
    const page = renderUsage(usage, parseModelPrices("gpt-4o=2.50/10.00"));
    expect(page).toContain("| custodian | `gpt-4o-mini` | 4 | 200000 | 10000 | 210000 |  |");
    expect(page).toContain("| manager | `gpt-4o` | 2 | 20000 | 4000 | 24000 | $0.09 |");
    expect(page).toContain("| **total** |  | 7 |  |  | 244000 |  |");
  });

  it("has no cost column at all without a price for any of its models", () => {
    for (const prices of [undefined, parseModelPrices("other=1/1")]) {
      const page = renderUsage(usage, prices);
      expect(page).not.toContain("Cost");
      expect(page).not.toContain("$");
      expect(page).toContain("| **total** |  | 7 |  |  | 244000 |");
    }
  });
});
