import OpenAI from "openai";
import type { z } from "zod";
import type { Agent } from "../config.js";
import { adaptToRefusal, type ServerDialect } from "./adapt-to-server.js";
import { describeFailure } from "./describe-failure.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { CostBudgetExceededError, UnpricedModelError } from "./cost-errors.js";
import { BudgetExceededError, LlmError, type BudgetShortfall, type LlmCallSite } from "./errors.js";
import { resolveLlmSettings, type LlmOptions, type LlmSettings, type StructuredOutputMode } from "./llm-settings.js";
import { newDataTag } from "./mark-data.js";
import { loadPrompt, PromptError, renderPrompt } from "./prompts.js";
import { answerReaderFor, type AnswerReader } from "./read-answer.js";
import { jsonModeInstruction, responseFormatFor } from "./response-format.js";
import type { AskRequest, AskResult, Llm, TraceRecord, Usage } from "./types.js";
import { estimateTokens, UsageLedger, type CostLimit, type LlmStats } from "./usage-ledger.js";

type Message = { role: "system" | "user" | "assistant"; content: string };
/** One answer of a request: its text, and what the server said of it (a refusal, a cut-off), to show with a problem. */
type Choice = { raw: string; note: string };
/** A request's answers (one unless it asked for `n`), what it used, and what was sent. */
type Completion = { choices: Choice[]; usage: Usage; ms: number; sent: Message[]; asked: number };

/** One request to the server: the conversation, the answer's schema (none for a text answer), and the dialect to speak. */
interface CompletionRequest {
  messages: Message[];
  schema?: z.ZodType;
  /** The prompt's largest variable, named when the request would overrun the budget. */
  largest: BudgetShortfall["largest"];
  /** Calls like this one the caller is about to make (AskRequest.alike). */
  alike?: number;
  /** Answers asked for in this one request (the API's `n`); 1 when absent. */
  n?: number;
  /** How the server is asked for structured output (default: the dialect that last got through). */
  dialect?: ServerDialect;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const OPENAI_URL = "https://api.openai.com/v1";

/** Creates the model client of one job (its token budget, stats and trace belong to that job). */
export function createLlm(options: LlmOptions): LlmClient {
  return new LlmClient(options);
}

/**
 * The Llm every stage uses, over any OpenAI-compatible server through the openai SDK: renders the
 * prompt file, asks for structured output and validates it with zod, or takes a text answer as it is
 * and reads it with the request's reader (either way one corrective retry), keeps the token budget,
 * and leaves a trace record per call. HTTP faults are retried by the SDK only.
 */
export class LlmClient implements Llm {
  /** One record per model call (and per refused call), in the order they ended. */
  readonly trace: TraceRecord[] = [];
  /** This job's data tag: it marks off the untrusted text in every prompt the client renders (see mark-data.ts). */
  readonly dataTag = newDataTag();
  private readonly settings: LlmSettings;
  private readonly sdk: OpenAI;
  private readonly ledger: UsageLedger;
  private readonly models: Record<Agent, string>;
  private dialect: ServerDialect;

  constructor(private readonly options: LlmOptions) {
    this.settings = resolveLlmSettings(options);
    const { apiKey, baseURL } = this.settings;
    if (!apiKey && !baseURL) {
      throw new Error("OPENAI_API_KEY is not set. Set it, or set OPENAI_BASE_URL to an OpenAI-compatible server that needs no key.");
    }
    this.sdk = new OpenAI({
      // A local server may need no key, but the SDK insists on one; it is never checked there.
      apiKey: apiKey ?? "no-key-needed",
      baseURL: baseURL ?? OPENAI_URL,
      maxRetries: this.settings.maxRetries,
      timeout: this.settings.timeoutMs,
    });
    this.models = this.settings.models;
    this.ledger = new UsageLedger(this.settings.tokenBudget, this.models, costLimitOf(this.settings));
    this.dialect = { mode: this.settings.structuredOutput, tokenLimit: "max_tokens", samples: true };
  }

  /** The structured-output mode in use now (json_schema until a server refuses it). */
  get structuredOutput(): StructuredOutputMode {
    return this.dialect.mode;
  }

  /** Calls and tokens so far, in total and per agent (with each agent's model). */
  stats(): LlmStats {
    return this.ledger.stats();
  }

  /**
   * Asks one agent step: renders the prompt, calls the model, returns the validated answer or throws an LlmError. With
   * `samples` over 1, one request asks for them all (`n`) and those the server did not return are asked one by one.
   */
  async ask<T>(request: AskRequest<T>): Promise<AskResult<T>> {
    const called: LlmCallSite = { agent: request.agent, prompt: request.prompt, model: this.models[request.agent] };
    const { messages, promptHash } = this.render(called, request.vars);
    const site: TracedSite = { ...called, promptHash };
    const largest = largestVariable(request.vars);
    const samples = Math.max(1, request.samples ?? 1);
    const reader = answerReaderFor<T>(request);
    const completion = await this.complete(site, {
      messages,
      schema: reader.schema,
      largest,
      ...(request.alike ? { alike: request.alike } : {}),
      ...(samples > 1 ? { n: samples } : {}),
    });
    let usage = completion.usage;
    const values: T[] = [];
    for (const [index, choice] of completion.choices.entries()) {
      const checked = this.check(site, completion, index, reader);
      if (checked.ok) {
        values.push(checked.value);
        continue;
      }
      // One corrective retry: the second try sees its first answer and why it was refused.
      const conversation: Message[] = [...messages, { role: "assistant", content: choice.raw }, { role: "user", content: reader.correction(checked.problem) }];
      const corrected = await this.askAgain(site, reader, conversation, largest);
      usage = addUsage(usage, corrected.usage);
      values.push(corrected.value);
    }
    if (samples === 1) return { value: values[0]!, usage };
    let requests = 1;
    // A server that ignores `n` returned fewer: the rest one by one, as samples of the same prompt.
    while (values.length < samples) {
      const { value, usage: used } = await this.ask({ ...request, samples: 1, alike: undefined });
      values.push(value);
      usage = addUsage(usage, used);
      requests += 1;
    }
    return { value: values[0]!, usage, sampled: { values, requests } };
  }

  /** The corrective retry of one answer: the conversation shows it and why it was refused; a second failure is the step's. */
  private async askAgain<T>(site: TracedSite, reader: AnswerReader<T>, conversation: Message[], largest: BudgetShortfall["largest"]): Promise<AskResult<T>> {
    const completion = await this.complete(site, { messages: conversation, schema: reader.schema, largest });
    const checked = this.check(site, completion, 0, reader);
    if (checked.ok) return { value: checked.value, usage: completion.usage };
    throw new LlmError(
      site,
      "invalid-answer",
      this.redact(`the answer did not fit the expected format, twice (the second time the model was shown why); last problem: ${checked.problem}`),
      `Try a stronger model for the ${site.agent} (models.${site.agent} in .github/magis.yml, or MAGIS_MODEL_${site.agent.toUpperCase()}).`,
    );
  }

  private render(site: LlmCallSite, vars: Record<string, string | number>): { messages: Message[]; promptHash: string } {
    try {
      const prompt = loadPrompt(site.prompt, { dir: this.options.promptsDir });
      if (prompt.agent !== site.agent) {
        throw new PromptError(`Prompt "${site.prompt}" belongs to the ${prompt.agent} (its front matter says so), not the ${site.agent}.`);
      }
      const { system, user } = renderPrompt(prompt, vars, { dataTag: this.dataTag });
      const messages: Message[] = [
        { role: "system", content: system },
        { role: "user", content: user },
      ];
      return { messages, promptHash: prompt.hash };
    } catch (error) {
      if (!(error instanceof PromptError)) throw error;
      throw new LlmError(site, "prompt", error.message, "Fix the prompt file in prompts/ or the variables the caller passes.");
    }
  }

  /** One request to the server (the SDK retries HTTP faults inside it), within the budget. */
  private async complete(site: TracedSite, request: CompletionRequest): Promise<Completion> {
    const { messages, schema, largest, dialect = this.dialect } = request;
    const n = dialect.samples ? (request.n ?? 1) : 1;
    // A text answer is asked as the prompt describes it: no response_format, no JSON instruction.
    const format = schema && dialect.mode === "json_schema" ? responseFormatFor(schema, site.prompt) : undefined;
    const sent: Message[] = schema && dialect.mode === "json" ? withInstruction(messages, jsonModeInstruction(schema)) : messages;
    // Worst case of this call: its prompt (estimateTokens, the schema included when sent, a few tokens of
    // framing per message) and its whole completion cap, since the model may use all of it.
    const promptText = sent.map((m) => m.content).join("\n") + (format ? JSON.stringify(format) : "");
    const promptTokens = estimateTokens(promptText) + 4 * sent.length;
    const single = promptTokens + this.settings.maxTokens;
    // With `n` the prompt is paid once and each answer may use the whole cap. The budget must still hold `alike` whole
    // requests: whether the server honours `n` is known only from its answer.
    const estimate = promptTokens + n * this.settings.maxTokens;
    const alike = request.alike ?? 1;
    const needed = Math.max(single * alike, estimate);
    // The same worst cases in dollars, at the agent's model's price.
    const estimateUsd = this.ledger.dollars(site.agent, { promptTokens, completionTokens: n * this.settings.maxTokens });
    const neededUsd = Math.max(alike * this.ledger.dollars(site.agent, { promptTokens, completionTokens: this.settings.maxTokens }), estimateUsd);
    const { cost } = this.ledger;
    if (cost && this.ledger.fits(needed) && !this.ledger.fitsUsd(neededUsd)) {
      const shortfall = { budget: cost, spentUsd: this.ledger.spentUsd, heldUsd: this.ledger.reservedUsd, neededUsd, promptTokens, alike };
      const error = new CostBudgetExceededError(site, { ...shortfall, answerTokens: this.settings.maxTokens, price: cost.prices.get(site.model)! });
      this.traceFailure(site, sent, 0, error.message);
      throw error;
    }
    if (!this.ledger.fits(needed) || !this.ledger.hold(estimate, estimateUsd)) {
      const { spent, reserved: held, budget } = this.ledger;
      const shortfall = { spent, held, budget, estimate: needed, promptTokens, answerTokens: this.settings.maxTokens, largest, alike };
      const error = new BudgetExceededError(site, shortfall);
      this.traceFailure(site, sent, 0, error.message);
      throw error;
    }
    const started = Date.now();
    try {
      const response = await this.sdk.chat.completions.create(
        {
          model: site.model,
          messages: sent,
          [dialect.tokenLimit]: this.settings.maxTokens,
          ...(format ? { response_format: format } : {}),
          ...(n > 1 ? { n } : {}),
        },
        { headers: { "X-Magis-Prompt": site.prompt, "X-Magis-Agent": site.agent }, signal: this.options.signal },
      );
      this.dialect = dialect;
      // No choice at all reads as an empty answer, which the corrective retry then asks again for.
      const given = [...response.choices].sort((a, b) => a.index - b.index).slice(0, n);
      const choices = (given.length > 0 ? given : [undefined]).map((choice) => ({
        raw: choice?.message?.content ?? "",
        note: describeChoice(choice, dialect, this.settings.maxTokens),
      }));
      const usage = response.usage
        ? { promptTokens: response.usage.prompt_tokens, completionTokens: response.usage.completion_tokens, totalTokens: response.usage.total_tokens }
        : estimatedUsage(sent, choices.map((c) => c.raw).join("\n"));
      this.ledger.settle(site.agent, estimate, usage, estimateUsd);
      return { choices, usage, ms: Date.now() - started, sent, asked: n };
    } catch (error) {
      this.ledger.settle(site.agent, estimate, NO_USAGE, estimateUsd);
      const ms = Date.now() - started;
      const adapted = adaptedDialect(error, dialect, format !== undefined);
      if (adapted) {
        // Kept for the rest of the job once a request in the new dialect gets through.
        this.traceFailure(
          site,
          sent,
          ms,
          `the server refused the request (${error instanceof Error ? error.message : String(error)}); trying again ${adapted.change}`,
        );
        return this.complete(site, { ...request, dialect: adapted.dialect });
      }
      const failure = describeFailure(error, { baseURL: this.sdk.baseURL, maxRetries: this.settings.maxRetries, timeoutMs: this.settings.timeoutMs });
      // The advice may name OPENAI_BASE_URL, which can carry a credential as much as the error itself.
      const llmError = new LlmError(site, failure.kind, this.redact(failure.what), this.redact(failure.todo));
      this.traceFailure(site, sent, ms, llmError.message);
      throw llmError;
    }
  }

  /** One answer of a request read by its reader, and its trace record; a request of several answers books its usage on the first. */
  private check<T>(site: TracedSite, completion: Completion, index: number, reader: AnswerReader<T>): { ok: true; value: T } | { ok: false; problem: string } {
    const choice = completion.choices[index]!;
    const checked = reader.read(choice.raw);
    const problem = checked.ok ? "" : checked.problem + choice.note;
    const parsed = checked.ok ? checked.value : checked.parsed;
    this.pushTrace({
      ...site,
      messages: completion.sent,
      raw: choice.raw,
      parsed,
      usage: index === 0 ? completion.usage : NO_USAGE,
      ms: completion.ms,
      ...(completion.asked > 1 ? { choice: index } : {}),
      ...(problem ? { error: problem } : {}),
    });
    return checked.ok ? { ok: true, value: checked.value } : { ok: false, problem };
  }

  private traceFailure(site: TracedSite, sent: Message[], ms: number, error: string): void {
    this.pushTrace({ ...site, messages: sent, raw: null, parsed: null, usage: NO_USAGE, ms, error });
  }

  private pushTrace(record: TraceRecord): void {
    const clean = redactDeep(record, (text) => this.redact(text));
    this.trace.push(clean);
    this.options.onTrace?.(clean);
  }

  private redact(text: string): string {
    return redactSecrets(text, [this.settings.apiKey]);
  }
}

/**
 * The job's dollar budget with its prices, or none; a budget that cannot be kept, since an agent's model has no price,
 * refuses the job before any call (UnpricedModelError names the agent and the model).
 */
function costLimitOf(settings: LlmSettings): CostLimit | undefined {
  const { costBudget, prices, models } = settings;
  if (!costBudget) return undefined;
  for (const [agent, model] of Object.entries(models) as [Agent, string][]) {
    if (!prices.has(model)) throw new UnpricedModelError(agent, model, costBudget);
  }
  return { ...costBudget, prices };
}

/** A call's site with the version of its prompt, as its trace records name them. */
type TracedSite = LlmCallSite & { promptHash: string };

/** A copy of a JSON-like value with every string passed through `redact` (field by field, so the JSON stays valid). */
function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)])) as T;
  }
  return value;
}

/** The prompt variable holding the most text, named in a budget error as what made the prompt large. */
function largestVariable(vars: Record<string, string | number>): BudgetShortfall["largest"] {
  let largest: BudgetShortfall["largest"];
  for (const [name, value] of Object.entries(vars)) {
    const chars = String(value).length;
    if (!largest || chars > largest.chars) largest = { name, chars };
  }
  return largest;
}

/**
 * The dialect to try after a refusal. A request that sent no response_format (a text answer) was not refused for it,
 * so its refusal never switches the job to plain JSON mode.
 */
function adaptedDialect(error: unknown, dialect: ServerDialect, sentFormat: boolean): ReturnType<typeof adaptToRefusal> {
  if (sentFormat) return adaptToRefusal(error, dialect);
  const adapted = adaptToRefusal(error, { ...dialect, mode: "json" });
  return adapted && { ...adapted, dialect: { ...adapted.dialect, mode: dialect.mode } };
}

/** What the server said of an answer besides its text: that the model refused, or that the answer was cut off. */
function describeChoice(choice: OpenAI.ChatCompletion.Choice | undefined, dialect: ServerDialect, maxTokens: number): string {
  const refusal = choice?.message?.refusal ? ` (the model refused: ${choice.message.refusal})` : "";
  const cut = choice?.finish_reason === "length" ? ` (the answer was cut off at ${dialect.tokenLimit} = ${maxTokens}; raise MAGIS_LLM_MAX_TOKENS)` : "";
  return refusal + cut;
}

function withInstruction(messages: Message[], instruction: string): Message[] {
  return messages.map((m, i) => (i === 1 ? { ...m, content: `${m.content}\n\n${instruction}` } : m));
}

function estimatedUsage(sent: Message[], raw: string): Usage {
  const promptTokens = estimateTokens(sent.map((m) => m.content).join("\n"));
  const completionTokens = estimateTokens(raw);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
