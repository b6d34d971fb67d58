import OpenAI, { APIConnectionTimeoutError, APIError } from "openai";
import { describeFailure } from "../llm/describe-failure.js";

/** How long the check waits for the endpoint: under /readyz's own bound (3 s), with the store's ping beside it. */
const CHECK_TIMEOUT_MS = 2_000;

/** How long a failed check stands before the next probe asks again (Kubernetes probes every 5 to 10 s). */
const RECHECK_AFTER_MS = 10_000;

/** The model's settings the check reads. */
export interface ModelEndpoint {
  apiKey?: string;
  baseUrl?: string;
}

/**
 * The readiness check of the model endpoint: GET {OPENAI_BASE_URL}/models through the openai SDK, one try within 2 s.
 * It resolves, saying so, once the endpoint has answered, and then never asks again: the check is that the settings
 * lead somewhere (a process whose endpoint later fails a job says so on the job), not a watch on the endpoint. Until
 * then it rejects saying what failed, asking again at most every 10 s. Any answer but a refused key counts: a server
 * that lists no models (404) is still there.
 */
export function checkModelEndpoint(model: ModelEndpoint, options: { timeoutMs?: number } = {}): () => Promise<string> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  // A local server may need no key, but the SDK insists on one; it is never checked there.
  const sdk = new OpenAI({ apiKey: model.apiKey ?? "no-key-needed", baseURL: model.baseUrl, maxRetries: 0, timeout: timeoutMs });
  const answers = `the model endpoint ${sdk.baseURL} answers`;
  let answered = false;
  let last: { at: number; check: Promise<void> } | undefined;
  const ask = async () => {
    try {
      await sdk.models.list();
    } catch (error) {
      if (error instanceof APIError && error.status !== undefined && error.status !== 401 && error.status !== 403) return;
      if (error instanceof APIConnectionTimeoutError) {
        throw new Error(
          `the model endpoint ${sdk.baseURL} did not answer GET /models within ${timeoutMs} ms: check OPENAI_BASE_URL and that the server is up`,
          {
            cause: error,
          },
        );
      }
      const failure = describeFailure(error, { baseURL: sdk.baseURL, maxRetries: 0, timeoutMs });
      throw new Error(`the model endpoint: ${failure.what}. ${failure.todo}`, { cause: error });
    }
  };
  return async () => {
    if (answered) return answers;
    if (!last || Date.now() - last.at >= RECHECK_AFTER_MS) last = { at: Date.now(), check: ask() };
    await last.check;
    answered = true;
    return answers;
  };
}
