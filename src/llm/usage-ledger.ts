import { AGENTS, type Agent } from "../config.js";
import type { Usage } from "./types.js";

/** One agent's share of a job: tokens, calls and the model it ran on. */
export type AgentUsage = Usage & { calls: number; model: string };

/** Calls and tokens of a job, in total and per agent. */
export interface LlmStats extends Usage {
  calls: number;
  byAgent: Record<Agent, AgentUsage>;
}

/** Rough token count of text: about four characters per token for English and code (no tokenizer needed). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * What a job has spent and may still spend. The budget is a hard ceiling: a call is admitted only
 * if the tokens spent, plus those held by calls still running, plus the call's own worst case
 * (estimated prompt + its full completion cap) stay within it.
 */
export class UsageLedger {
  private held = 0;
  private calls = 0;
  private readonly byAgent: Record<Agent, AgentUsage>;

  constructor(
    readonly budget: number,
    models: Record<Agent, string>,
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

  /** Whether `estimate` more tokens fit in what is left of the budget (nothing is held). */
  fits(estimate: number): boolean {
    return this.spent + this.held + estimate <= this.budget;
  }

  /** Holds `estimate` tokens for a call about to start; false (nothing held) when that could pass the budget. */
  hold(estimate: number): boolean {
    if (!this.fits(estimate)) return false;
    this.held += estimate;
    return true;
  }

  /** Ends a call: frees what it held and books what it really used (zero for a failed call). */
  settle(agent: Agent, held: number, usage: Usage): void {
    this.held -= held;
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
