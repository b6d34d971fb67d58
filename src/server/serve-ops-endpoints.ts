import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { redactSecrets } from "../lib/redact-secrets.js";
import { withinTime } from "../lib/within-time.js";
import type { MagisMetrics } from "./metrics.js";
import { renderFrontPage, type FrontPage } from "./render-front-page.js";

/** What the operations endpoints serve. */
export interface OpsEndpointsOptions {
  /** Served at GET /metrics; without it /metrics is left to the caller. */
  metrics?: MagisMetrics;
  /** Resolves when the process can do its work (the store answers, the queue started), else rejects saying what is not; without it /readyz is left to the caller. */
  ready?: () => Promise<string | void>;
  /** Served at GET /: what the process is, with links to the endpoints; without it / is left to the caller. */
  front?: FrontPage;
  /** Where changes of readiness are logged. */
  log: Logger;
}

/** Answers the request if it is one of the operations endpoints; returns whether it did. */
export type OpsHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

// Kubernetes' probe in deploy/ waits 5 s: a slower check answers 503 itself, saying so, rather than timing out the probe.
const READY_TIMEOUT_MS = 3_000;

/**
 * The unauthenticated GET endpoints both roles serve: / (what this is, with links), /ping ("PONG"), /healthz ("ok"
 * while the event loop runs), /metrics (Prometheus text) and /readyz (200, or 503 with `{ error }` saying what is not
 * ready). Nothing they answer holds a secret: errors pass through redactSecrets.
 */
export function opsEndpoints(options: OpsEndpointsOptions): OpsHandler {
  const { metrics, ready, front, log } = options;
  let wasReady: boolean | undefined;
  const checkReadiness = async (response: ServerResponse, check: () => Promise<string | void>) => {
    const late = () => new Error(`the readiness check did not finish within ${READY_TIMEOUT_MS} ms`);
    const outcome = await withinTime(Promise.resolve().then(check), READY_TIMEOUT_MS, late).then(
      (note) => ({ note: note || undefined }),
      (failure: unknown) => ({ error: safeMessage(failure) }),
    );
    if (!("error" in outcome)) {
      if (wasReady !== true) log.info("ready: /readyz answers 200");
      wasReady = true;
      // A note below the first line says what the process runs with (its sandbox); probes read the status alone.
      return answer(response, 200, "text/plain", outcome.note ? `ready\n${redactSecrets(outcome.note)}\n` : "ready");
    }
    const { error } = outcome;
    if (wasReady !== false) log.warn({ reason: error }, `not ready: /readyz answers 503 (${error})`);
    wasReady = false;
    answer(response, 503, "application/json", JSON.stringify({ error }));
  };
  const serveMetrics = async (response: ServerResponse, served: MagisMetrics) => {
    try {
      answer(response, 200, served.contentType, await served.text());
    } catch (failure) {
      log.error({ err: failure }, "rendering the metrics failed");
      answer(response, 500, "application/json", JSON.stringify({ error: `rendering the metrics failed: ${safeMessage(failure)}` }));
    }
  };
  return (request, response) => {
    if (request.method !== "GET") return false;
    switch (request.url?.split("?")[0]) {
      case "/": {
        if (!front) return false;
        const page = renderFrontPage(front, request.headers.accept);
        answer(response, 200, page.contentType, page.body);
        return true;
      }
      case "/ping":
        answer(response, 200, "text/plain", "PONG");
        return true;
      case "/healthz":
        answer(response, 200, "text/plain", "ok");
        return true;
      case "/metrics":
        if (!metrics) return false;
        void serveMetrics(response, metrics);
        return true;
      case "/readyz":
        if (!ready) return false;
        void checkReadiness(response, ready);
        return true;
      default:
        return false;
    }
  };
}

/** Sends a whole answer that no cache keeps: a probe must see the state of now. */
export function answer(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { "content-type": contentType, "cache-control": "no-store" }).end(body);
}

/** A failure's message fit for an unauthenticated answer: anything shaped like a credential (a DATABASE_URL's password) removed. */
function safeMessage(failure: unknown): string {
  return redactSecrets(failure instanceof Error ? failure.message : String(failure));
}
