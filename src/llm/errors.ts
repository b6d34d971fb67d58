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

// Shapes of common credentials, removed even when we were not told the exact value.
const CREDENTIAL_SHAPES = [
  /\b(?:sk|rk|pk)-[A-Za-z0-9_-]{12,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bBearer\s+[^\s"',]+/gi,
  /\b(api[_-]?key|token)(["']?\s*[:=]\s*["']?)[^\s"',]+/gi,
  // Credentials written into a URL (an OPENAI_BASE_URL such as https://user:key@proxy/v1).
  /(?<=\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:"']+:[^\s/@"']+(?=@)/gi,
];

/** Removes the given secrets and anything shaped like a credential from text bound for errors or traces. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short placeholders ("x", "none") would blank out ordinary words; real keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join("[redacted]");
  }
  for (const shape of CREDENTIAL_SHAPES) {
    out = out.replace(shape, (_match, name?: string, sep?: string) => (typeof name === "string" && typeof sep === "string" ? `${name}${sep}[redacted]` : "[redacted]"));
  }
  return out;
}
