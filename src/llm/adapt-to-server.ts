import { APIError } from "openai";
import type { StructuredOutputMode } from "./llm-settings.js";

/** Request settings that differ between OpenAI-compatible servers, learned from what they refuse. */
export interface ServerDialect {
  /** json_schema sends response_format; json only instructs in the prompt. */
  mode: StructuredOutputMode;
  /** OpenAI's reasoning models refuse max_tokens and want max_completion_tokens; most local servers know only max_tokens. */
  tokenLimit: "max_tokens" | "max_completion_tokens";
  /** Whether several answers are asked in one request (`n`); false once a server refused the parameter. */
  samples: boolean;
}

/**
 * The dialect to try after a server refused a request (400 or 422), with a note saying what
 * changed; null when nothing we could change explains the refusal.
 */
export function adaptToRefusal(error: unknown, dialect: ServerDialect): { dialect: ServerDialect; change: string } | null {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return null;
  if (dialect.tokenLimit === "max_tokens" && /max_completion_tokens/.test(error.message)) {
    return { dialect: { ...dialect, tokenLimit: "max_completion_tokens" }, change: "sending max_completion_tokens instead of max_tokens" };
  }
  // Servers that refuse `n` name it (vLLM with greedy sampling, some gateways): ask for one answer a request instead.
  if (dialect.samples && /(["'`]n["'`]|\bn\b (is|must|should|>|not)|parameter:? n\b)/i.test(error.message)) {
    return { dialect: { ...dialect, samples: false }, change: "asking for one answer a request (no n)" };
  }
  // Servers that do not know response_format answer with a 400 of varying wording, so any 400 counts.
  if (dialect.mode === "json_schema") {
    return { dialect: { ...dialect, mode: "json" }, change: "switching to plain JSON mode (no response_format)" };
  }
  return null;
}
