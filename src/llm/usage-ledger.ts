import { AGENTS, type Agent } from "../config.js";
import type { CostBudget } from "./cost-errors.js";
import { dollarsOf, type ModelPrices } from "./prices.js";
import type { Usage } from "./types.js";

/** One agent's share of a job: tokens, calls and the model it ran on. */
export type AgentUsage = Usage & { calls: number; model: string };

/** Calls and tokens of a job, in total and per agent. */
export interface LlmStats extends Usage {
  calls: number;
  byAgent: Record<Agent, AgentUsage>;
}

/**
 * Tokens a prompt may cost, before a call, with no tokenizer: ASCII at four characters a token (English and code), and
 * every other character at its UTF-8 bytes, the most a byte-level BPE tokenizer (OpenAI's, Llama 3's, Qwen's) can make
 * of it, since each token holds at least one byte. Common Chinese, Japanese or Hindi text costs 0.3-0.4 tokens a byte in
 * OpenAI's cl100k and o200k, uncommon CJK characters 0.8 and CJK Extension B ones 0.98 (measured with gpt-tokenizer):
 * four characters a token undercounted 60,000 CJK characters by four times.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x80) ascii++;
  return Math.ceil(ascii / 4) + Buffer.byteLength(text, "utf8") - ascii;
}

/** A job's dollar budget and the prices it is counted at. */
export type CostLimit = CostBudget & { prices: ModelPrices };

/**
 * What a job has spent and may still spend. The budget is a hard ceiling: a call is admitted only
 * if the tokens spent, plus those held by calls still running, plus the call's own worst case
 * (estimated prompt + its full completion cap) stay within it. With a cost limit the same holds in
 * dollars, each agent's tokens at its model's price.
 */
export class UsageLedger {
  private held = 0;
  private heldUsd = 0;
  private calls = 0;
  private readonly byAgent: Record<Agent, AgentUsage>;

  constructor(
    readonly budget: number,
    models: Record<Agent, string>,
    readonly cost?: CostLimit,
  ) {
    this.byAgent = Object.fromEntries(
      AGENTS.map((agent) => [agent, { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, model: models[agent] }]),
    ) as Record<Agent, AgentUsage>;
  }

  /** Tokens spent by finished calls. */
  get spent(): number {
    return AGENTS.reduce((sum, agent) => sum + this.byAgent[agent].totalTokens, 0);
  }

  /** Tokens held for calls still running. */
  get reserved(): number {
    return this.held;
  }

  /** Dollars spent by finished calls, at the cost limit's prices (0 without one). */
  get spentUsd(): number {
    return AGENTS.reduce((sum, agent) => sum + (dollarsOf(this.byAgent[agent], this.byAgent[agent].model, this.cost?.prices) ?? 0), 0);
  }

  /** Dollars held for calls still running. */
  get reservedUsd(): number {
    return this.heldUsd;
  }

  /** What `tokens` of `agent` cost at its model's price; 0 without a cost limit (the client refused unpriced models at its start). */
  dollars(agent: Agent, tokens: Pick<Usage, "promptTokens" | "completionTokens">): number {
    return dollarsOf(tokens, this.byAgent[agent].model, this.cost?.prices) ?? 0;
  }

  /** Whether `estimate` more tokens fit in what is left of the budget (nothing is held). */
  fits(estimate: number): boolean {
    return this.spent + this.held + estimate <= this.budget;
  }

  /** Whether `usd` more dollars fit in what is left of the cost limit; always, without one. */
  fitsUsd(usd: number): boolean {
    return !this.cost || this.spentUsd + this.heldUsd + usd <= this.cost.usd;
  }

  /** Holds `estimate` tokens (and `usd` dollars) for a call about to start; false (nothing held) when that could pass a budget. */
  hold(estimate: number, usd = 0): boolean {
    if (!this.fits(estimate) || !this.fitsUsd(usd)) return false;
    this.held += estimate;
    this.heldUsd += usd;
    return true;
  }

  /** Ends a call: frees what it held and books what it really used (zero for a failed call). */
  settle(agent: Agent, held: number, usage: Usage, heldUsd = 0): void {
    this.held -= held;
    this.heldUsd -= heldUsd;
    this.calls += 1;
    const mine = this.byAgent[agent];
    mine.calls += 1;
    mine.promptTokens += usage.promptTokens;
    mine.completionTokens += usage.completionTokens;
    mine.totalTokens += usage.totalTokens;
  }

  /** A copy of the figures so far. */
  stats(): LlmStats {
    const byAgent = Object.fromEntries(AGENTS.map((agent) => [agent, { ...this.byAgent[agent] }])) as Record<Agent, AgentUsage>;
    const sum = (key: keyof Usage) => AGENTS.reduce((total, agent) => total + byAgent[agent][key], 0);
    return { calls: this.calls, promptTokens: sum("promptTokens"), completionTokens: sum("completionTokens"), totalTokens: sum("totalTokens"), byAgent };
  }
}
