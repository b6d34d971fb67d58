import type { Agent } from "../config.js";
import { LlmError, type LlmCallSite } from "./errors.js";
import { formatDollars, type ModelPrice } from "./prices.js";

/** Where a job's dollar budget came from: the repository's cost_budget_usd, or the operator's MAGIS_MAX_COST_USD. */
export interface CostBudget {
  usd: number;
  from: "config" | "operator";
  /** The operator's bound, when one is set (a repository's budget may only be lower). */
  boundUsd?: number;
}

/** What a call refused for dollars would have cost at most, and what the job had left. */
export interface CostShortfall {
  budget: CostBudget;
  /** Dollars finished calls cost. */
  spentUsd: number;
  /** Dollars held for calls still running. */
  heldUsd: number;
  /** This call's worst case in dollars (its prompt and its whole answer cap, for each call alike). */
  neededUsd: number;
  promptTokens: number;
  answerTokens: number;
  price: ModelPrice;
  alike: number;
}

/** The call that would pass the job's dollar budget; thrown before any request is sent, as the token budget's error is. */
export class CostBudgetExceededError extends LlmError {
  constructor(
    site: LlmCallSite,
    readonly shortfall: CostShortfall,
  ) {
    const { budget, spentUsd, heldUsd, neededUsd, promptTokens, answerTokens, price, alike } = shortfall;
    const what = alike > 1 ? `the ${alike} requests for ${site.prompt} (one per candidate)` : `the request for ${site.prompt}`;
    const running = heldUsd > 0 ? `, ${formatDollars(heldUsd)} held by calls still running` : "";
    super(
      site,
      "cost",
      `this job would spend more than its ${formatDollars(budget.usd)} budget: ${what} could cost up to ${formatDollars(neededUsd)} ` +
        `(a prompt of about ${fmt(promptTokens)} tokens and an answer of up to ${fmt(answerTokens)}${alike > 1 ? " each" : ""}, at ${site.model}'s ` +
        `$${price.prompt}/$${price.completion} per million tokens), and ${formatDollars(Math.max(0, budget.usd - spentUsd - heldUsd))} is left ` +
        `(${formatDollars(spentUsd)} spent${running}), so ${alike > 1 ? "none was made" : "it was not made"}`,
      raiseBudget(budget),
    );
    this.name = "CostBudgetExceededError";
  }
}

/** A job under a dollar budget whose agent's model has no price: the budget cannot be kept, so the job does not start. */
export class UnpricedModelError extends Error {
  /** What is wrong, for the failure note. */
  readonly what: string;
  /** What to do about it. */
  readonly todo: string;

  constructor(
    readonly agent: Agent,
    readonly model: string,
    budget: CostBudget,
  ) {
    const what =
      `This job has a budget of ${formatDollars(budget.usd)} (${budget.from === "config" ? "cost_budget_usd in .github/magis.yml" : "the operator's MAGIS_MAX_COST_USD"}), ` +
      `but the ${agent}'s model ${model} has no price, so the budget cannot be kept; no model was called`;
    const todo =
      `Add ${model}=PROMPT/COMPLETION (US dollars per million tokens) to MAGIS_MODEL_PRICES where the app runs, or choose a priced model for the ${agent}` +
      (budget.from === "config" ? ", or remove cost_budget_usd from .github/magis.yml." : ".");
    super(`${what}. ${todo}`);
    this.name = "UnpricedModelError";
    this.what = what;
    this.todo = todo;
  }
}

function raiseBudget(budget: CostBudget): string {
  if (budget.from === "operator") {
    return `The budget is the operator's MAGIS_MAX_COST_USD: raise it where the app runs (a repository's cost_budget_usd may only lower it).`;
  }
  const bound = budget.boundUsd === undefined ? "" : ` (up to the operator's MAGIS_MAX_COST_USD of ${formatDollars(budget.boundUsd)})`;
  return `Raise cost_budget_usd in .github/magis.yml${bound}.`;
}

const fmt = (n: number) => n.toLocaleString("en-US");
