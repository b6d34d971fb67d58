import http from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import { listenOn } from "./listen-on.js";
import type { MagisMetrics } from "./metrics.js";
import { opsEndpoints } from "./serve-ops-endpoints.js";
import type { RunningServer } from "./listen-on.js";

/** Where the worker role's operations server listens and what it reports. */
export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  metrics: MagisMetrics;
  /** The check behind GET /readyz: resolves when the store answers and the queue started, else rejects saying what is not ready. */
  ready: () => Promise<string | void>;
  log: Logger;
}

/**
 * The worker role's HTTP server: GET /, /ping, /healthz, /readyz and /metrics, 404 elsewhere (a worker takes no
 * webhooks). Each request is logged at debug level: probes and scrapes come every few seconds.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningServer> {
  const log = options.log.child({ name: "http" });
  const ops = opsEndpoints({ metrics: options.metrics, ready: options.ready, front: { role: "worker" }, log });
  const server = http.createServer((request, response) => {
    const started = performance.now();
    response.once("close", () =>
      log.debug({ status: response.statusCode, ms: Math.round(performance.now() - started) }, `${request.method} ${request.url} ${response.statusCode}`),
    );
    if (!ops(request, response)) response.writeHead(404).end();
  });
  return listenOn(server, options.host, options.port, log);
}
