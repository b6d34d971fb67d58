import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { resolveLlmSettings } from "../../../src/llm/llm-settings.js";
import { modelSettings } from "../../support/model-settings.js";

describe("resolveLlmSettings", () => {
  it("uses the documented defaults when nothing is set", () => {
    expect(resolveLlmSettings({ settings: modelSettings() })).toMatchObject({
      apiKey: undefined,
      baseURL: undefined,
      structuredOutput: "json_schema",
      maxRetries: 2,
      timeoutMs: 120_000,
      tokenBudget: 400_000,
      maxTokens: 4096,
    });
  });

  it("reads the environment, and MAGIS_TOKEN_BUDGET wins over token_budget in the config", () => {
    const env = {
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
      MAGIS_STRUCTURED_OUTPUT: "json",
      MAGIS_LLM_MAX_RETRIES: "5",
      MAGIS_LLM_TIMEOUT_MS: "30_000",
      MAGIS_TOKEN_BUDGET: "50000",
      MAGIS_LLM_MAX_TOKENS: "1024",
    };
    expect(resolveLlmSettings({ settings: modelSettings(env), config: parseConfig({ token_budget: 9000 }) })).toMatchObject({
      apiKey: "k",
      baseURL: "http://127.0.0.1:1/v1",
      structuredOutput: "json",
      maxRetries: 5,
      timeoutMs: 30_000,
      tokenBudget: 50_000,
      maxTokens: 1024,
    });
    expect(resolveLlmSettings({ settings: modelSettings(), config: parseConfig({ token_budget: 9000 }) }).tokenBudget).toBe(9000);
  });

  it("lets explicit options win over the environment", () => {
    expect(resolveLlmSettings({ settings: modelSettings({ MAGIS_LLM_MAX_RETRIES: "5" }), maxRetries: 0 }).maxRetries).toBe(0);
  });

  it("names the variable that is malformed", () => {
    expect(() => resolveLlmSettings({ settings: modelSettings({ MAGIS_LLM_TIMEOUT_MS: "soon" }) })).toThrow(
      "MAGIS_LLM_TIMEOUT_MS is 'soon': set it to the milliseconds one model request may take (a whole number, from 1 to 3600000), or leave it unset for 120000",
    );
    expect(() => resolveLlmSettings({ settings: modelSettings({ MAGIS_LLM_MAX_RETRIES: "-1" }) })).toThrow(/^MAGIS_LLM_MAX_RETRIES is '-1': .*from 0 to 10/);
    expect(() => resolveLlmSettings({ settings: modelSettings({ MAGIS_STRUCTURED_OUTPUT: "xml" }) })).toThrow(
      'MAGIS_STRUCTURED_OUTPUT must be "json_schema" or "json", not "xml".',
    );
  });
});
