import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";

/** How long a delivery's handlers may take before it is answered 202 (GitHub gives up after 10 s), as Probot's middleware does. */
export const STILL_PROCESSING_MS = 9_000;

/** The webhook events Probot's handlers take, by name (`issues`, `ping`, …). */
type EmitterEvent = Parameters<Probot["webhooks"]["receive"]>[0];

const JSON_TYPE = /^\s*application\/json\s*(?:;|$)/u;

/**
 * Answers a delivery whose signature the guard has checked (its body is `body`): parses it once and hands it to
 * Probot's handlers, 200 once they are done (the app's records the delivery first), 202 after STILL_PROCESSING_MS.
 * Probot's own middleware would check the signature a second time; the answers are the ones it gives: 415 for a body
 * that is not JSON by its content type, 400 for a missing header or JSON that does not parse, a handler's error's
 * status (else 500).
 */
export async function answerDelivery(request: IncomingMessage, response: ServerResponse, probot: Probot, body: string): Promise<void> {
  const type = request.headers["content-type"];
  if (typeof type !== "string" || !JSON_TYPE.test(type)) {
    return answer(response, 415, { error: `the Content-Type header is ${JSON.stringify(type ?? "")}; a GitHub delivery is application/json` });
  }
  const name = request.headers["x-github-event"];
  const id = request.headers["x-github-delivery"];
  if (typeof name !== "string" || name === "" || typeof id !== "string" || id === "") {
    return answer(response, 400, { error: "the request has no X-GitHub-Event or X-GitHub-Delivery header, which every GitHub delivery carries" });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return answer(response, 400, { error: "the body is not valid JSON" });
  }
  let late = false;
  const stillProcessing = setTimeout(() => {
    late = true;
    answer(response, 202, "still processing\n");
  }, STILL_PROCESSING_MS);
  try {
    await probot.webhooks.receive({ id, name, payload } as EmitterEvent);
    if (!late) answer(response, 200, "ok\n");
  } catch (error) {
    probot.log.error({ err: error, delivery: id, event: name }, "a webhook handler failed");
    if (!late) answer(response, statusOf(error), { error: messageOf(error) });
  } finally {
    clearTimeout(stillProcessing);
  }
}

/** The first handler error's status (StoreUnavailableError's 503, a busy store's), else 500; Probot gathers them in an AggregateError. */
function statusOf(error: unknown): number {
  const status = (firstError(error) as { status?: unknown }).status;
  return typeof status === "number" && status >= 400 && status <= 599 ? status : 500;
}

function messageOf(error: unknown): string {
  const first = firstError(error);
  return first instanceof Error ? `${first.name}: ${first.message}` : String(first);
}

function firstError(error: unknown): unknown {
  return error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
}

function answer(response: ServerResponse, status: number, body: string | object): void {
  if (response.headersSent) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const contentType = typeof body === "string" ? "text/plain" : "application/json";
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) }).end(text);
}
