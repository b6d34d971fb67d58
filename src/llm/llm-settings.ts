import { parseConfig, type MagisConfig } from "../config.js";
import { wholeNumberFrom } from "../lib/env-number.js";
import type { TraceRecord } from "./types.js";

/** How the client asks for JSON: `json_schema` sends `response_format`; `json` only instructs in the prompt. */
export type StructuredOutputMode = "json_schema" | "json";

/** Options of createLlm; each falls back to its environment variable, then to the config or a default. */
export interface LlmOptions {
  /** The repository's config (models per agent, token_budget); defaults to an empty .github/magis.yml. */
  config?: MagisConfig;
  /** Where OPENAI_* and MAGIS_* are read; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** OPENAI_API_KEY; a local server may need none. */
  apiKey?: string;
  /** OPENAI_BASE_URL, e.g. http://127.0.0.1:8080/v1; defaults to OpenAI. */
  baseURL?: string;
  /** MAGIS_STRUCTURED_OUTPUT; default json_schema, with an automatic switch to json when the server refuses it. */
  structuredOutput?: StructuredOutputMode;
  /** MAGIS_LLM_MAX_RETRIES: how often the SDK retries 429, 5xx, timeouts and connection errors (default 2). */
  maxRetries?: number;
  /** MAGIS_LLM_TIMEOUT_MS: how long one try may take (default 120000). */
  timeoutMs?: number;
  /** MAGIS_TOKEN_BUDGET, else config token_budget: most tokens this client (one job) may spend. */
  tokenBudget?: number;
  /** MAGIS_LLM_MAX_TOKENS: the completion cap sent as max_tokens with every call (default 4096). */
  maxTokens?: number;
  /** Aborts the call under way and refuses later ones (the job was cancelled or ran out of time). */
  signal?: AbortSignal;
  /** Folder of prompt files; defaults to the package's prompts/. */
  promptsDir?: string;
  /** Called with each call's trace record as soon as the call ends. */
  onTrace?: (record: TraceRecord) => void;
}

/** Options after environment and defaults were applied. */
export interface LlmSettings {
  config: MagisConfig;
  env: NodeJS.ProcessEnv;
  apiKey: string | undefined;
  baseURL: string | undefined;
  structuredOutput: StructuredOutputMode;
  maxRetries: number;
  timeoutMs: number;
  tokenBudget: number;
  maxTokens: number;
}

/** Applies environment variables and defaults to createLlm's options; a malformed variable is an error naming it. */
export function resolveLlmSettings(options: LlmOptions): LlmSettings {
  const env = options.env ?? process.env;
  const config = options.config ?? parseConfig({});
  const mode = options.structuredOutput ?? env.MAGIS_STRUCTURED_OUTPUT ?? "json_schema";
  if (mode !== "json_schema" && mode !== "json") {
    throw new Error(`MAGIS_STRUCTURED_OUTPUT must be "json_schema" or "json", not "${mode}".`);
  }
  return {
    config,
    env,
    apiKey: options.apiKey ?? (env.OPENAI_API_KEY || undefined),
    baseURL: options.baseURL ?? (env.OPENAI_BASE_URL || undefined),
    structuredOutput: mode,
    maxRetries:
      options.maxRetries ??
      wholeNumberFrom(env, "MAGIS_LLM_MAX_RETRIES", { fallback: 2, min: 0, max: 10, meaning: "the SDK's retries of a failed model request" }),
    timeoutMs:
      options.timeoutMs ??
      wholeNumberFrom(env, "MAGIS_LLM_TIMEOUT_MS", { fallback: 120_000, min: 1, max: 3_600_000, meaning: "the milliseconds one model request may take" }),
    tokenBudget:
      options.tokenBudget ??
      wholeNumberFrom(env, "MAGIS_TOKEN_BUDGET", {
        fallback: config.token_budget,
        min: 1000,
        meaning: "the tokens one job may spend",
        unset: "the repository's token_budget",
      }),
    maxTokens:
      options.maxTokens ?? wholeNumberFrom(env, "MAGIS_LLM_MAX_TOKENS", { fallback: 4096, min: 16, max: 1_000_000, meaning: "the most tokens of one answer" }),
  };
}
