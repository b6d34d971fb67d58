import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseConfig } from "../../../src/config.js";
import { createLlm } from "../../../src/llm/client.js";
import type { LlmOptions } from "../../../src/llm/llm-settings.js";
import type { ScriptedModel } from "../../support/scripted-model.js";
import { modelSettings } from "../../support/model-settings.js";

/** A key-shaped secret the tests look for in every error and trace. */
export const SECRET_KEY = "sk-test-0123456789abcdefSECRET";

export const fixturePrompts = fileURLToPath(new URL("../../fixtures/prompts", import.meta.url));

/** The answer schema of the fixture prompt judge-file. */
export const judgement = z.object({ relevant: z.boolean(), reason: z.string().min(1) });

export const judgeRequest = {
  agent: "custodian" as const,
  prompt: "judge-file",
  vars: { path: "src/date.ts", summary: "Parses ISO dates." },
  schema: judgement,
};

/** A client for the scripted model, isolated from the process environment. */
export function clientFor(model: ScriptedModel, options: Partial<LlmOptions> = {}) {
  return createLlm({
    apiKey: SECRET_KEY,
    baseURL: model.url,
    settings: modelSettings(),
    config: parseConfig({ model: "scripted-model" }),
    promptsDir: fixturePrompts,
    ...options,
  });
}
