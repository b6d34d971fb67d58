import { AGENTS, ConfigError, modelFor, parseConfig, type Agent, type ConfigProblem, type MagisConfig, type ModelNames } from "../config.js";
import type { CostBudget } from "./cost-errors.js";
import type { ModelPrices } from "./prices.js";
import type { TraceRecord } from "./types.js";

/** How the client asks for JSON: `json_schema` sends `response_format`; `json` only instructs in the prompt. */
export type StructuredOutputMode = "json_schema" | "json";

/** The model's settings as the environment gives them, checked (the `model` part of readSettings' object). */
export interface ModelSettings extends ModelNames {
  apiKey?: string;
  baseUrl?: string;
  structuredOutput: StructuredOutputMode;
  maxRetries: number;
  timeoutMs: number;
  /** Unset: the config's token_budget. */
  tokenBudget?: number;
  maxTokens: number;
  /** MAGIS_MODEL_PRICES: dollars per million tokens by model; unset, no dollars are counted. */
  prices?: ModelPrices;
  /** MAGIS_MAX_COST_USD: the operator's bound on a job's dollars, which a repository's cost_budget_usd may only lower. */
  maxCostUsd?: number;
}

/** Options of createLlm; each falls back to its setting, then to the config or a default. */
export interface LlmOptions {
  /** The repository's config (models per agent, token_budget); defaults to an empty .github/magis.yml. */
  config?: MagisConfig;
  /** OPENAI_* and MAGIS_* as the door read them. */
  settings: ModelSettings;
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
  /** The model of each agent (see modelFor). */
  models: Record<Agent, string>;
  apiKey: string | undefined;
  baseURL: string | undefined;
  structuredOutput: StructuredOutputMode;
  maxRetries: number;
  timeoutMs: number;
  tokenBudget: number;
  maxTokens: number;
  prices: ModelPrices;
  /** The job's dollar budget, when the repository or the operator set one. */
  costBudget: CostBudget | undefined;
}

/** Applies the settings and defaults to createLlm's options: an option wins over its setting. */
export function resolveLlmSettings(options: LlmOptions): LlmSettings {
  const { settings } = options;
  const config = options.config ?? parseConfig({});
  return {
    config,
    models: Object.fromEntries(AGENTS.map((agent) => [agent, modelFor(agent, config, settings)])) as Record<Agent, string>,
    apiKey: options.apiKey ?? settings.apiKey,
    baseURL: options.baseURL ?? settings.baseUrl,
    structuredOutput: options.structuredOutput ?? settings.structuredOutput,
    maxRetries: options.maxRetries ?? settings.maxRetries,
    timeoutMs: options.timeoutMs ?? settings.timeoutMs,
    tokenBudget: options.tokenBudget ?? settings.tokenBudget ?? config.token_budget,
    maxTokens: options.maxTokens ?? settings.maxTokens,
    prices: settings.prices ?? new Map(),
    costBudget: costBudgetOf(config.cost_budget_usd, settings.maxCostUsd),
  };
}

/** The repository's cost_budget_usd where it is below the operator's bound, else the bound; neither set, none. */
export function costBudgetOf(repositoryUsd: number | undefined, boundUsd: number | undefined): CostBudget | undefined {
  const bound = boundUsd === undefined ? {} : { boundUsd };
  if (repositoryUsd !== undefined && (boundUsd === undefined || repositoryUsd <= boundUsd)) return { usd: repositoryUsd, from: "config", ...bound };
  return boundUsd === undefined ? undefined : { usd: boundUsd, from: "operator", ...bound };
}

/**
 * Refuses a repository config that chooses a model its app's operator did not allow: the models the operator set
 * (MAGIS_MODEL, MAGIS_MODEL_<AGENT>) and those MAGIS_ALLOWED_MODELS lists. A config's choice the operator's own setting
 * overrides is not a choice and passes. The problems name the config's fields, never the model (the text is the
 * repository's, and goes into a comment).
 */
export function checkRepositoryModels(config: MagisConfig, names: ModelNames & { allowedModels: readonly string[] }): void {
  const allowed = new Set([...names.allowedModels, ...(names.model ? [names.model] : []), ...Object.values(names.agentModels)]);
  const problems: ConfigProblem[] = [];
  const refuse = (path: string) =>
    problems.push({
      path,
      message: `names a model this app's operator does not allow; remove it to use the operator's model, or ask the operator to list it in MAGIS_ALLOWED_MODELS`,
    });
  const everyAgentOverrides = AGENTS.every((agent) => names.agentModels[agent] || config.models[agent] || names.model);
  if (config.model && !everyAgentOverrides && !allowed.has(config.model)) refuse("model");
  for (const agent of AGENTS) {
    const chosen = config.models[agent];
    if (chosen && !names.agentModels[agent] && !allowed.has(chosen)) refuse(`models.${agent}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
