import { describe, expect, it } from "vitest";
import { readSettings } from "../../../../src/app/settings/read-settings.js";

describe("the price table's and the cost bound's settings", () => {
  it("reads MAGIS_MODEL_PRICES into settings.model.prices and MAGIS_MAX_COST_USD into settings.model.maxCostUsd, for every door", () => {
    for (const door of ["serve", "action", "cli", "eval"] as const) {
      const { model } = readSettings({ MAGIS_MODEL_PRICES: "gpt-4o=2.50/10.00", MAGIS_MAX_COST_USD: "0.50" }, { door });
      expect([...model.prices]).toEqual([["gpt-4o", { prompt: 2.5, completion: 10 }]]);
      expect(model.maxCostUsd).toBe(0.5);
    }
    const unset = readSettings({ MAGIS_MAX_COST_USD: " " }, { door: "serve" }).model;
    expect(unset.prices.size).toBe(0);
    expect(unset.maxCostUsd).toBeUndefined();
  });

  it("stops the door at its start on a mistyped table or bound, naming each", () => {
    expect(() => readSettings({ MAGIS_MODEL_PRICES: "gpt-4o:2.50/10.00" }, { door: "serve" })).toThrow(
      "MAGIS_MODEL_PRICES holds 'gpt-4o:2.50/10.00', which is not a price: write MODEL=PROMPT/COMPLETION",
    );
    for (const bound of ["0", "-1", "$5", "five"]) {
      expect(() => readSettings({ MAGIS_MAX_COST_USD: bound }, { door: "cli" })).toThrow(
        `MAGIS_MAX_COST_USD is '${bound}', which is not an amount of dollars: set it to one such as 0.50 or 5, or leave it unset for no bound`,
      );
    }
  });
});
