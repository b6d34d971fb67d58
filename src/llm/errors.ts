import type { Agent } from "../config.js";

/** What kind of failure an LlmError reports, for callers that map failures to instructions. */
export type LlmFailureKind = "http" | "timeout" | "connection" | "invalid-answer" | "budget" | "prompt";

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

/** The call that would pass the job's token budget; thrown before any request is sent. */
export class BudgetExceededError extends LlmError {
  constructor(
    site: LlmCallSite,
    readonly spent: number,
    readonly estimate: number,
    readonly budget: number,
  ) {
    super(
      site,
      "budget",
      `${fmt(spent)} tokens were spent so far and this call may need about ${fmt(estimate)} more, ` +
        `which would pass the job's token budget of ${fmt(budget)}, so it was not made`,
      "Raise token_budget in .github/magis.yml, or set the MAGIS_TOKEN_BUDGET environment variable (it wins over the file).",
    );
    this.name = "BudgetExceededError";
  }
}

const fmt = (n: number) => n.toLocaleString("en-US");

