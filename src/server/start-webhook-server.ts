import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { ApplicationFunction, Probot } from "probot";
import { SmeeClient } from "smee-client";
import { answerDelivery } from "./answer-delivery.js";
import { listenOn, type RunningServer } from "./listen-on.js";
import type { MagisMetrics, WebhookOutcome } from "./metrics.js";
import { BodyBudget, type BodyLimits } from "./body-budget.js";
import { readBodyWithin } from "./read-body-within.js";
import type { FrontPage } from "./render-front-page.js";
import { opsEndpoints } from "./serve-ops-endpoints.js";
import type { SessionPages } from "./serve-session-pages.js";

/** Where GitHub POSTs the app's webhooks: the URL registered with the app is the server's address and this path. */
export const WEBHOOK_PATH = "/api/github/webhooks";

/** GitHub caps webhook payloads at 25 MB; it never sends more, so a larger body is not from GitHub. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/** Where the server listens and what it serves. */
export interface WebhookServerOptions {
  probot: Probot;
  app: ApplicationFunction;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The role of the process (`all`, the default, or `web`), named on GET /. */
  role?: FrontPage["role"];
  /** A smee.io channel forwarding GitHub's webhooks to this server (local development). */
  webhookProxy?: string;
  /** Served at GET /metrics, and told how each webhook delivery was answered and how fast. */
  metrics?: MagisMetrics;
  /** The check behind GET /readyz: resolves when the store answers and the queue started, else rejects saying what is not ready. */
  ready?: () => Promise<string | void>;
  /** Whether a delivery answered 2xx was a redelivery of one recorded before (counted apart in `metrics`); asked once per delivery. */
  redelivered?: (delivery: string) => boolean;
  /** Bytes of unverified bodies held at once (default DEFAULT_BODY_LIMITS). */
  bodyLimits?: BodyLimits;
  /** How long a client may take to send a request's headers, and the whole request (default DEFAULT_REQUEST_TIMEOUTS). */
  timeouts?: { headersMs: number; requestMs: number };
  /** The session pages (/jobs/<id> and the sign-in), when they are on; asked per request, since they exist once the app has loaded. */
  pages?: () => SessionPages | undefined;
}

/**
 * Unverified bodies held at once: four of GitHub's largest deliveries in all, a little over one per client (GitHub
 * sends a delivery at a time on a connection, and a burst of small ones fits many times over).
 */
export const DEFAULT_BODY_LIMITS: BodyLimits = { totalBytes: 4 * MAX_WEBHOOK_BYTES, perClientBytes: MAX_WEBHOOK_BYTES + 1024 * 1024 };

/**
 * GitHub gives up on a delivery after 10 s: a client that has not sent its headers in 10 s, or its whole request in
 * 20 s, is not GitHub, and its connection is closed (Node's defaults are a minute and five minutes).
 */
export const DEFAULT_REQUEST_TIMEOUTS = { headersMs: 10_000, requestMs: 20_000 };

/** A refusal of a request before Probot sees it: the answer, the reason logged for the operator, and whether the body was left unread. */
interface Refusal {
  status: number;
  error: string;
  bodyLeft?: boolean;
}

/**
 * Serves Probot's webhook middleware behind a guard, with the operations endpoints (GET /, /ping, /healthz, and /metrics
 * and /readyz when given what they need), the session pages when they are on, and 404 elsewhere. The guard reads each POST body itself, refusing one over
 * GitHub's 25 MB cap before buffering it (413), and a body whose signature does not match WEBHOOK_SECRET (400); a
 * delivery so checked goes to Probot's handlers without a second check (answerDelivery). Each request is logged once, with the refusal's reason and never the body (a probe of
 * the operations endpoints at debug level only); each delivery's outcome and answer time go to `metrics`.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<RunningServer> {
  const { probot } = options;
  await probot.load(options.app);
  const webhooks = await probot.getNodeMiddleware();
  const log = probot.log.child({ name: "http" });
  const front: FrontPage = { role: options.role ?? "all", webhookPath: probot.webhookPath };
  const ops = opsEndpoints({ metrics: options.metrics, ready: options.ready, front, log });
  const budget = new BodyBudget(options.bodyLimits ?? DEFAULT_BODY_LIMITS);
  const timeouts = options.timeouts ?? DEFAULT_REQUEST_TIMEOUTS;
  const server = http.createServer(
    // Node looks for connections past these every 30 s unless told otherwise: every second, or more often for short ones.
    { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: Math.min(1000, timeouts.headersMs / 2) },
    (request, response) => {
      const started = performance.now();
      let refusal: Refusal | undefined;
      const probe = ops(request, response);
      const isDelivery = request.method === "POST" && request.url?.split("?")[0] === probot.webhookPath;
      response.once("close", () => {
        const ms = performance.now() - started;
        logRequest(log, { request, response, ms: Math.round(ms), refusal, probe });
        if (isDelivery) {
          const outcome = webhookOutcome(response);
          const delivery = String(request.headers["x-github-delivery"] ?? "");
          options.metrics?.webhookAnswered(outcome === "recorded" && options.redelivered?.(delivery) ? "redelivery" : outcome, ms / 1000);
        }
      });
      if (probe) return;
      if (!isDelivery && options.pages?.()?.handle(request, response)) return;
      void (async () => {
        if (request.method === "POST") {
          refusal = await screenWebhook(request, probot, budget);
          if (refusal) return refuse(request, response, refusal);
        }
        // Its signature checked: answered here, so that it is not checked again (Probot's middleware would).
        if (isDelivery) return await answerDelivery(request, response, probot, bodyOf(request));
        if (await webhooks(request, response)) return;
        response.writeHead(404).end();
      })().catch((error: unknown) => {
        log.error({ err: error, delivery: request.headers["x-github-delivery"] }, "the request failed");
        if (!response.headersSent) response.writeHead(500).end();
        else response.destroy();
      });
    },
  );
  const listening = await listenOn(server, options.host, options.port, log);
  const proxy = options.webhookProxy
    ? await new SmeeClient({ source: options.webhookProxy, target: `http://${options.host}:${listening.port}${probot.webhookPath}`, logger: log }).start()
    : undefined;
  return {
    ...listening,
    stop: async () => {
      proxy?.close();
      // The server's close waits for open responses: a live page's event stream would hold it until its job ends.
      options.pages?.()?.close();
      await listening.stop();
    },
  };
}

/** How a delivery's answer counts: 2xx recorded, 4xx refused, 5xx or an answer that never went out (the client left) failed. */
function webhookOutcome(response: ServerResponse): WebhookOutcome {
  if (!response.writableFinished || response.statusCode >= 500) return "failed";
  return response.statusCode >= 400 ? "refused" : "recorded";
}

/**
 * Checks a POST before Probot sees it: a delivery without a signature is refused before its body is read; the body is
 * read within GitHub's cap and within what the server may hold of unverified bodies (else 503, to be sent again), and
 * its signature is checked. The body goes on to Probot as `request.body`; what it held of the budget is given back.
 */
async function screenWebhook(request: IncomingMessage, probot: Probot, budget: BodyBudget): Promise<Refusal | undefined> {
  const signature = request.headers["x-hub-signature-256"];
  if (typeof signature !== "string" || signature === "") {
    return {
      status: 400,
      error: "the request has no X-Hub-Signature-256 header, which every GitHub delivery carries; its body was not read",
      bodyLeft: true,
    };
  }
  const client = request.socket.remoteAddress ?? "unknown";
  let held = 0;
  const take = (bytes: number) => {
    if (!budget.take(client, bytes)) return false;
    held += bytes;
    return true;
  };
  try {
    return await checkBody(request, probot, signature, take);
  } finally {
    budget.give(client, held);
  }
}

async function checkBody(request: IncomingMessage, probot: Probot, signature: string, take: (bytes: number) => boolean): Promise<Refusal | undefined> {
  const body = await readBodyWithin(request, MAX_WEBHOOK_BYTES, take);
  if (!body.ok && body.reason === "busy") {
    return {
      status: 503,
      error: `the server holds as many unverified bodies as it may (this client's, or all of them); the delivery was not read (${body.bytes} bytes seen) and may be sent again`,
      bodyLeft: true,
    };
  }
  if (!body.ok) {
    return {
      status: 413,
      error: `the body has more than ${MAX_WEBHOOK_BYTES} bytes, GitHub's limit for a webhook payload (${body.bytes} bytes seen)`,
      bodyLeft: true,
    };
  }
  if (!(await probot.webhooks.verify(body.text, signature).catch(() => false))) {
    return {
      status: 400,
      error: "the X-Hub-Signature-256 signature does not match the payload: check that WEBHOOK_SECRET is the app's webhook secret on GitHub",
    };
  }
  // @octokit/webhooks' middleware takes a body that is already a string as the payload instead of reading the stream.
  (request as IncomingMessage & { body?: string }).body = body.text;
  return undefined;
}

/** The body the guard read and verified (screenWebhook). */
function bodyOf(request: IncomingMessage): string {
  return (request as IncomingMessage & { body?: string }).body ?? "";
}

/** A request that has ended, as its log line tells it. */
interface EndedRequest {
  request: IncomingMessage;
  response: ServerResponse;
  /** From the request's start to its connection's close, in whole milliseconds. */
  ms: number;
  /** Why the guard refused it, if it did. */
  refusal: Refusal | undefined;
  /** Whether an operations endpoint answered it. */
  probe: boolean;
}

/** The one log line of a request: a warning with the reason when it was refused, never the body; a probe at debug (they come every few seconds, and the endpoints log what goes wrong). */
function logRequest(log: Probot["log"], { request, response, ms, refusal, probe }: EndedRequest): void {
  const fields = {
    status: response.statusCode,
    ms,
    delivery: request.headers["x-github-delivery"],
    event: request.headers["x-github-event"],
    ...(refusal ? { reason: refusal.error } : {}),
  };
  const line = `${request.method} ${request.url} ${response.statusCode} - ${ms}ms`;
  if (refusal) log.warn(fields, line);
  else if (probe) log.debug(fields, line);
  else if (response.statusCode >= 500) log.error(fields, line);
  else log.info(fields, line);
}

/** How long a connection whose body was refused stays open for the client to read the answer (see refuse). */
const LINGER_MS = 1000;

/**
 * Answers a refused request. A body left unread (oversized, unsigned, or past the budget) is not read further, and the connection closes once the answer is
 * out: our side at once, the whole connection when the client closes its side or after LINGER_MS. Closing it whole
 * at once would reset it while the client is still sending, and a reset makes the client drop the answer it has not
 * read yet; so what the client sends meanwhile is dropped unread, as servers linger before closing.
 */
function refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const bodyLeft = refusal.bodyLeft === true;
  if (bodyLeft) {
    const socket = request.socket;
    // Node's server would close the whole connection once the answer is out: it closes our side only.
    socket.destroySoon = () => void socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once("end", () => socket.destroy());
  }
  const retry = refusal.status === 503 ? { "retry-after": "10" } : {};
  response.writeHead(refusal.status, { "content-type": "application/json", ...retry, ...(bodyLeft ? { connection: "close" } : {}) });
  response.end(JSON.stringify({ error: refusal.error }));
}
