import type { Agent } from "../config.js";

/** What kind of failure an LlmError reports, for callers that map failures to instructions. */
export type LlmFailureKind = "http" | "timeout" | "connection" | "invalid-answer" | "budget" | "cost" | "prompt";

/** Which call failed: the agent, its prompt file and the model it ran on. */
export interface LlmCallSite {
  agent: Agent;
  prompt: string;
  model: string;
}

/** A model call that failed: names the agent, prompt and model, says what happened and what to do. Never holds a credential. */
export class LlmError extends Error {
  readonly agent: Agent;
  readonly prompt: string;
  readonly model: string;

  constructor(
    site: LlmCallSite,
    readonly kind: LlmFailureKind,
    /** What happened, e.g. "the server answered 500 after 3 tries". */
    readonly what: string,
    /** What the maintainer can do about it. */
    readonly todo: string,
  ) {
    super(`The ${site.agent} call with prompt "${site.prompt}" (model ${site.model}) failed: ${what}. ${todo}`);
    this.name = "LlmError";
    this.agent = site.agent;
    this.prompt = site.prompt;
    this.model = site.model;
  }
}

/** What a refused call would have needed, and what the job had left: the figures of a BudgetExceededError. */
export interface BudgetShortfall {
  /** Tokens finished calls have used. */
  spent: number;
  /** Tokens held for calls still running. */
  held: number;
  budget: number;
  /** This call's worst case: its prompt and its whole answer cap. */
  estimate: number;
  promptTokens: number;
  answerTokens: number;
  /** The prompt variable holding the most text, which is what to look at when a prompt is too large. */
  largest?: { name: string; chars: number };
  /** Calls like this one that were about to be made together (candidate samples); the estimate is for all of them. */
  alike?: number;
}

/** The call that would pass the job's token budget; thrown before any request is sent. Says what the call was made of. */
export class BudgetExceededError extends LlmError {
  constructor(
    site: LlmCallSite,
    readonly shortfall: BudgetShortfall,
  ) {
    const { spent, held, budget, estimate, promptTokens, answerTokens, largest, alike = 1 } = shortfall;
    const what = alike > 1 ? `the ${alike} requests for ${site.prompt} (one per candidate, \`candidates: ${alike}\`)` : `the request for ${site.prompt}`;
    const each = alike > 1 ? " each" : "";
    const biggest = largest ? `, whose largest part is \`${largest.name}\` with ${fmt(largest.chars)} characters` : "";
    const running = held > 0 ? `, ${fmt(held)} held by calls still running` : "";
    super(
      site,
      "budget",
      `${what} would take about ${fmt(estimate)} tokens (a prompt of about ${fmt(promptTokens)} tokens${biggest}; ` +
        `an answer of up to ${fmt(answerTokens)}${each}), and the job has ${fmt(Math.max(0, budget - spent - held))} left of its token budget of ${fmt(budget)} ` +
        `(${fmt(spent)} spent${running}), so ${alike > 1 ? "none was made" : "it was not made"}`,
      (alike > 1 ? "Lower candidates, or raise" : "Raise") +
        " token_budget in .github/magis.yml, or set the MAGIS_TOKEN_BUDGET environment variable (it wins over the file).",
    );
    this.name = "BudgetExceededError";
  }
}

const fmt = (n: number) => n.toLocaleString("en-US");
