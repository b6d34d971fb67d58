import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ApplicationFunction, Probot } from "probot";
import { SmeeClient } from "smee-client";
import { readBodyWithin } from "./read-body-within.js";

/** GitHub caps webhook payloads at 25 MB; it never sends more, so a larger body is not from GitHub. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/** The app's HTTP server once it listens. */
export interface RunningServer {
  host: string;
  port: number;
  /** Stops listening (and forwarding from the webhook proxy) and waits for open requests to finish. */
  stop(): Promise<void>;
}

/** Where the server listens and what it serves. */
export interface WebhookServerOptions {
  probot: Probot;
  app: ApplicationFunction;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A smee.io channel forwarding GitHub's webhooks to this server (local development). */
  webhookProxy?: string;
}

/** A refusal of a request before Probot sees it: the answer, and the reason logged for the operator. */
interface Refusal {
  status: number;
  error: string;
}

/**
 * Serves Probot's webhook middleware behind a guard, with GET /ping answered "PONG" and 404 elsewhere. The guard
 * reads each POST body itself, refusing one over GitHub's 25 MB cap before buffering it (413), and a body whose
 * signature does not match WEBHOOK_SECRET (400); Probot gets the body already read. Each request is logged once,
 * with the refusal's reason and never the body.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<RunningServer> {
  const { probot } = options;
  await probot.load(options.app);
  const webhooks = await probot.getNodeMiddleware();
  const log = probot.log.child({ name: "http" });
  const server = http.createServer((request, response) => {
    const started = Date.now();
    let refusal: Refusal | undefined;
    response.once("close", () => logRequest(log, request, response, Date.now() - started, refusal));
    void (async () => {
      if (request.method === "POST") {
        refusal = await screenWebhook(request, probot);
        if (refusal) return refuse(request, response, refusal);
      }
      if (await webhooks(request, response)) return;
      if (request.method === "GET" && request.url?.split("?")[0] === "/ping") return void response.writeHead(200, { "content-type": "text/plain" }).end("PONG");
      response.writeHead(404).end();
    })().catch((error: unknown) => {
      log.error({ err: error, delivery: request.headers["x-github-delivery"] }, "the request failed");
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  log.info(`Listening on http://${options.host}:${address.port}`);
  const proxy = options.webhookProxy
    ? await new SmeeClient({ source: options.webhookProxy, target: `http://${options.host}:${address.port}${probot.webhookPath}`, logger: log }).start()
    : undefined;
  return {
    host: options.host,
    port: address.port,
    stop: async () => {
      proxy?.close();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Reads a POST body within GitHub's cap and checks its signature; the body goes on to Probot as `request.body`. */
async function screenWebhook(request: IncomingMessage, probot: Probot): Promise<Refusal | undefined> {
  const body = await readBodyWithin(request, MAX_WEBHOOK_BYTES);
  if (!body.ok) {
    return { status: 413, error: `the body has more than ${MAX_WEBHOOK_BYTES} bytes, GitHub's limit for a webhook payload (${body.bytes} bytes seen)` };
  }
  const signature = request.headers["x-hub-signature-256"];
  if (typeof signature === "string" && !(await probot.webhooks.verify(body.text, signature).catch(() => false))) {
    return { status: 400, error: "the X-Hub-Signature-256 signature does not match the payload: check that WEBHOOK_SECRET is the app's webhook secret on GitHub" };
  }
  // @octokit/webhooks' middleware takes a body that is already a string as the payload instead of reading the stream.
  (request as IncomingMessage & { body?: string }).body = body.text;
  return undefined;
}

/** The one log line of a request: a warning with the reason when it was refused, never the body. */
function logRequest(log: Probot["log"], request: IncomingMessage, response: ServerResponse, ms: number, refusal: Refusal | undefined): void {
  const fields = {
    status: response.statusCode,
    ms,
    delivery: request.headers["x-github-delivery"],
    event: request.headers["x-github-event"],
    ...(refusal ? { reason: refusal.error } : {}),
  };
  const line = `${request.method} ${request.url} ${response.statusCode} - ${ms}ms`;
  if (refusal) log.warn(fields, line);
  else if (response.statusCode >= 500) log.error(fields, line);
  else log.info(fields, line);
}

/** Answers a refused request; an oversized body is not read further: the connection closes once the answer is out. */
function refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const tooLarge = refusal.status === 413;
  response.writeHead(refusal.status, { "content-type": "application/json", ...(tooLarge ? { connection: "close" } : {}) });
  response.end(JSON.stringify({ error: refusal.error }), () => {
    if (tooLarge) request.destroy();
  });
}
