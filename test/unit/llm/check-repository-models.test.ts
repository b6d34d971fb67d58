import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { checkRepositoryModels } from "../../../src/llm/llm-settings.js";

const operator = (names: { model?: string; agentModels?: Record<string, string>; allowedModels?: string[] }) => ({
  model: names.model,
  agentModels: names.agentModels ?? {},
  allowedModels: names.allowedModels ?? [],
});

describe("checkRepositoryModels", () => {
  it("takes a config that chooses no model, or only models the operator set or allows", () => {
    expect(() => checkRepositoryModels(parseConfig({}), operator({ model: "gpt-4o-mini" }))).not.toThrow();
    expect(() => checkRepositoryModels(parseConfig({ model: "gpt-4o-mini" }), operator({ model: "gpt-4o-mini" }))).not.toThrow();
    expect(() => checkRepositoryModels(parseConfig({ models: { qa: "o1-mini" } }), operator({ allowedModels: ["o1-mini"] }))).not.toThrow();
  });

  it("refuses a model the operator neither set nor allows, naming each field that chose it", () => {
    const config = parseConfig({ model: "big", models: { developer: "bigger", qa: "o1-mini" } });
    expect(() => checkRepositoryModels(config, operator({ allowedModels: ["o1-mini"] }))).toThrow(
      /- model: names a model[^\n]*\n- models\.developer: names a model/,
    );
  });

  it("passes a choice the operator's own per-agent or global setting overrides: it is never used", () => {
    const config = parseConfig({ model: "big", models: { developer: "bigger" } });
    expect(() => checkRepositoryModels(config, operator({ model: "gpt-4o-mini", agentModels: { developer: "gpt-4o" } }))).not.toThrow();
  });
});
