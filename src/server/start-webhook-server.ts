import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { ApplicationFunction, Probot } from "probot";
import { SmeeClient } from "smee-client";
import { listenOn, type RunningServer } from "./listen-on.js";
import type { MagisMetrics, WebhookOutcome } from "./metrics.js";
import { readBodyWithin } from "./read-body-within.js";
import { opsEndpoints } from "./serve-ops-endpoints.js";

/** GitHub caps webhook payloads at 25 MB; it never sends more, so a larger body is not from GitHub. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/** Where the server listens and what it serves. */
export interface WebhookServerOptions {
  probot: Probot;
  app: ApplicationFunction;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A smee.io channel forwarding GitHub's webhooks to this server (local development). */
  webhookProxy?: string;
  /** Served at GET /metrics, and told how each webhook delivery was answered and how fast. */
  metrics?: MagisMetrics;
  /** The check behind GET /readyz: resolves when the store answers and the queue started, else rejects saying what is not ready. */
  ready?: () => Promise<void>;
  /** Whether a delivery answered 2xx was a redelivery of one recorded before (counted apart in `metrics`); asked once per delivery. */
  redelivered?: (delivery: string) => boolean;
}

/** A refusal of a request before Probot sees it: the answer, and the reason logged for the operator. */
interface Refusal {
  status: number;
  error: string;
}

/**
 * Serves Probot's webhook middleware behind a guard, with the operations endpoints (GET /ping, /healthz, and /metrics
 * and /readyz when given what they need) and 404 elsewhere. The guard reads each POST body itself, refusing one over
 * GitHub's 25 MB cap before buffering it (413), and a body whose signature does not match WEBHOOK_SECRET (400); Probot
 * gets the body already read. Each request is logged once, with the refusal's reason and never the body (a probe of
 * the operations endpoints at debug level only); each delivery's outcome and answer time go to `metrics`.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<RunningServer> {
  const { probot } = options;
  await probot.load(options.app);
  const webhooks = await probot.getNodeMiddleware();
  const log = probot.log.child({ name: "http" });
  const ops = opsEndpoints({ metrics: options.metrics, ready: options.ready, log });
  const server = http.createServer((request, response) => {
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
    void (async () => {
      if (request.method === "POST") {
        refusal = await screenWebhook(request, probot);
        if (refusal) return refuse(request, response, refusal);
      }
      if (await webhooks(request, response)) return;
      response.writeHead(404).end();
    })().catch((error: unknown) => {
      log.error({ err: error, delivery: request.headers["x-github-delivery"] }, "the request failed");
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  const listening = await listenOn(server, options.host, options.port, log);
  const proxy = options.webhookProxy
    ? await new SmeeClient({ source: options.webhookProxy, target: `http://${options.host}:${listening.port}${probot.webhookPath}`, logger: log }).start()
    : undefined;
  return {
    ...listening,
    stop: async () => {
      proxy?.close();
      await listening.stop();
    },
  };
}

/** How a delivery's answer counts: 2xx recorded, 4xx refused, 5xx or an answer that never went out (the client left) failed. */
function webhookOutcome(response: ServerResponse): WebhookOutcome {
  if (!response.writableFinished || response.statusCode >= 500) return "failed";
  return response.statusCode >= 400 ? "refused" : "recorded";
}

/** Reads a POST body within GitHub's cap and checks its signature; the body goes on to Probot as `request.body`. */
async function screenWebhook(request: IncomingMessage, probot: Probot): Promise<Refusal | undefined> {
  const body = await readBodyWithin(request, MAX_WEBHOOK_BYTES);
  if (!body.ok) {
    return { status: 413, error: `the body has more than ${MAX_WEBHOOK_BYTES} bytes, GitHub's limit for a webhook payload (${body.bytes} bytes seen)` };
  }
  const signature = request.headers["x-hub-signature-256"];
  if (typeof signature === "string" && !(await probot.webhooks.verify(body.text, signature).catch(() => false))) {
    return {
      status: 400,
      error: "the X-Hub-Signature-256 signature does not match the payload: check that WEBHOOK_SECRET is the app's webhook secret on GitHub",
    };
  }
  // @octokit/webhooks' middleware takes a body that is already a string as the payload instead of reading the stream.
  (request as IncomingMessage & { body?: string }).body = body.text;
  return undefined;
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
 * Answers a refused request. An oversized body is not read further, and the connection closes once the answer is
 * out: our side at once, the whole connection when the client closes its side or after LINGER_MS. Closing it whole
 * at once would reset it while the client is still sending, and a reset makes the client drop the answer it has not
 * read yet; so what the client sends meanwhile is dropped unread, as servers linger before closing.
 */
function refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const tooLarge = refusal.status === 413;
  if (tooLarge) {
    const socket = request.socket;
    // Node's server would close the whole connection once the answer is out: it closes our side only.
    socket.destroySoon = () => void socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once("end", () => socket.destroy());
  }
  response.writeHead(refusal.status, { "content-type": "application/json", ...(tooLarge ? { connection: "close" } : {}) });
  response.end(JSON.stringify({ error: refusal.error }));
}
