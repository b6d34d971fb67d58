import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { LlmFailureKind } from "./errors.js";

/** What the client knows about how a failed request was sent. */
export interface RequestSettings {
  baseURL: string;
  maxRetries: number;
  timeoutMs: number;
}

/** A failure in plain words: what happened and what to do, before secrets are removed. */
export interface FailureDescription {
  kind: LlmFailureKind;
  what: string;
  todo: string;
}

/** Turns an error the openai SDK threw (after its own retries) into what happened and what to do. */
export function describeFailure(error: unknown, settings: RequestSettings): FailureDescription {
  const allTries = settings.maxRetries + 1;
  const tries = (n: number) => (n === 1 ? "1 try" : `${n} tries`);
  if (error instanceof APIConnectionTimeoutError) {
    return {
      kind: "timeout",
      what: `no answer within ${settings.timeoutMs} ms (${tries(allTries)})`,
      todo: `Check that the server at ${settings.baseURL} is up and not overloaded, or raise MAGIS_LLM_TIMEOUT_MS.`,
    };
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return {
      kind: "connection",
      what: `could not reach ${settings.baseURL} (${tries(allTries)})${cause}`,
      todo: "Check OPENAI_BASE_URL and that the server is running.",
    };
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const retried = error.headers?.get("x-should-retry") !== "false" && (status === 408 || status === 409 || status === 429 || status >= 500);
    const said = serverMessage(error);
    const base = `the server answered ${status} after ${tries(retried ? allTries : 1)}${said}`;
    return { kind: "http", what: base, todo: todoForStatus(status) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "connection", what: `the request failed: ${message}`, todo: "Check OPENAI_BASE_URL and the server's logs." };
}

function todoForStatus(status: number): string {
  if (status === 401 || status === 403) return "Check OPENAI_API_KEY (the server refused it) and that it may use this model.";
  if (status === 404) return "Check the model name (MAGIS_MODEL, or models in .github/magis.yml) and that OPENAI_BASE_URL ends in /v1.";
  if (status === 429)
    return "The server is rate limiting: wait and retry (/magis retry), raise MAGIS_LLM_MAX_RETRIES, or lower concurrency in .github/magis.yml.";
  if (status >= 500)
    return "The model server is failing: retry later (/magis retry) or check the server's logs; MAGIS_LLM_MAX_RETRIES sets how often to retry.";
  return "The server rejected the request: check that the model supports chat completions, and lower top_k in .github/magis.yml if the prompt is too long.";
}

function serverMessage(error: APIError): string {
  // The SDK's message is "<status> <server message or body>"; keep the server's words only.
  const text = error.message
    .replace(/^\d{3}\s*/, "")
    .replace(/^status code \(no body\)$/, "")
    .trim();
  if (!text) return "";
  return ` (server said: ${text.length > 300 ? `${text.slice(0, 300)}…` : text})`;
}
