import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { readSettings } from "../../src/app/settings/read-settings.js";
import type { ServiceSeams } from "../../src/app/service-types.js";
import { magisApp, type MagisServices } from "../../src/index.js";
import { appPrivateKey } from "../support/app-private-key.js";
import { assertWebhookPayload } from "../support/github-spec/webhook-spec.js";

/** The app's real HTTP middleware on 127.0.0.1, with every log line it writes captured. */
export interface RunningApp {
  url: string;
  /** Every log line (JSON) written by Probot, Octokit and the app, at trace level. */
  logs: string[];
  services: MagisServices;
  /**
   * POSTs a webhook signed with the app's secret (or the given signature) and returns the response status; the payload
   * must be one GitHub sends (it is checked against @octokit/webhooks-schemas first).
   */
  deliver(event: string, payload: unknown, delivery: string, signature?: string): Promise<number>;
  close(): Promise<void>;
}

/** Signs a webhook body as GitHub does (`X-Hub-Signature-256`). */
export function sign(secret: string, body: string): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** What a test's app runs with: its environment, read as `magis serve` reads it, and the parts the test puts in. */
export interface AppOptions {
  env: NodeJS.ProcessEnv;
  seams?: Omit<ServiceSeams, "onReady">;
}

/** Starts Probot's node middleware with the MAGIS app on a node:http server. */
export async function startApp(secret: string, options: AppOptions): Promise<RunningApp> {
  const privateKey = appPrivateKey();
  const logs: string[] = [];
  const log = pino({ level: "trace" }, { write: (line: string) => void logs.push(line) });
  const probot = new Probot({
    appId: 1,
    privateKey,
    secret,
    log,
    // GitHub's retries and write pacing (one write a second) would only slow the fake down. A function,
    // because Probot passes its own throttle options to every client, replacing a plain default.
    Octokit: ProbotOctokit.defaults((options: Record<string, any>) => ({
      ...options,
      retry: { enabled: false },
      throttle: { ...options.throttle, enabled: false },
    })),
  });
  let services: MagisServices | undefined;
  // Kept objects would outlive the test in the temp folder; test/integration/workspace/object-cache.test.ts covers them.
  const env = { MAGIS_OBJECT_CACHE_MB: "0", ...options.env };
  const settings = { env, values: readSettings(env, { door: "serve" }) };
  const middleware = await createNodeMiddleware(magisApp({ settings, seams: { ...options.seams, onReady: (s) => (services = s) } }), { probot });
  const server = http.createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    logs,
    services: services!,
    deliver: async (event, payload, delivery, signature) => {
      assertWebhookPayload(event, payload);
      const body = JSON.stringify(payload);
      const response = await fetch(`${url}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": delivery,
          "x-hub-signature-256": signature ?? sign(secret, body),
        },
        body,
      });
      await response.text();
      return response.status;
    },
    close: async () => {
      // Stops the queue and the worker's sweep of kept objects (a timer), as the app's own stop does.
      await services!.stop(0);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
