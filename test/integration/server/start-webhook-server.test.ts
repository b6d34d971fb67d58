import http from "node:http";
import net from "node:net";
import { pino } from "pino";
import { Probot } from "probot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMetrics, type MagisMetrics } from "../../../src/server/metrics.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { MAX_WEBHOOK_BYTES, startWebhookServer } from "../../../src/server/start-webhook-server.js";
import { sign } from "../../e2e/start-app.js";
import { parsePrometheusText } from "../../support/parse-prometheus-text.js";
import { appPrivateKey } from "../../support/app-private-key.js";

const SECRET = "s3cret";
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The web role's server on a free port of 127.0.0.1, with an app whose `issues` handler fails; `logs` gets every line. */
async function serveWebhooks(
  options: { metrics?: MagisMetrics; ready?: () => Promise<void>; logs?: string[]; redelivered?: (delivery: string) => boolean } = {},
): Promise<string> {
  const privateKey = appPrivateKey();
  const log = pino({ level: "debug" }, { write: (line: string) => void options.logs?.push(line) });
  const probot = new Probot({ appId: 1, privateKey, secret: SECRET, log });
  const app = (probot: Probot) => {
    probot.on("issues", () => {
      throw new Error("the handler failed");
    });
  };
  server = await startWebhookServer({
    probot,
    app,
    host: "127.0.0.1",
    port: 0,
    metrics: options.metrics,
    ready: options.ready,
    redelivered: options.redelivered,
  });
  return `http://127.0.0.1:${server.port}`;
}

/** POSTs a webhook body to the webhook path, signed with `secret`, and returns the status. */
async function deliver(base: string, event: string, delivery: string, secret = SECRET): Promise<number> {
  const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1, action: "opened" });
  const response = await fetch(`${base}/api/github/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": event, "x-github-delivery": delivery, "x-hub-signature-256": sign(secret, body) },
    body,
  });
  await response.text();
  return response.status;
}

/** A POST that declares a body over GitHub's cap and sends none of it; resolves to the status of the answer. */
function postOversized(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "big-1", "content-length": MAX_WEBHOOK_BYTES + 1 },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode!);
      request.destroy();
    });
    request.on("error", reject);
    request.flushHeaders();
  });
}

/** Sends a webhook's headers and half its declared body, then hangs up before any answer. */
async function hangUpMidBody(base: string): Promise<void> {
  const { port } = new URL(base);
  const socket = net.connect(Number(port), "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(
    'POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-github-event: ping\r\ncontent-length: 100\r\n\r\n{"zen":',
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

async function scrape(base: string) {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

describe("the web role's webhook server", () => {
  it("counts each webhook delivery by outcome and times its answer", async () => {
    const metrics = createMetrics({ role: "web" });
    // The app says d-2 was recorded before: answered 200 all the same, counted as a redelivery.
    const base = await serveWebhooks({ metrics, redelivered: (delivery) => delivery === "d-2" });
    expect(await deliver(base, "ping", "d-1")).toBe(200);
    expect(await deliver(base, "ping", "d-2")).toBe(200);
    expect(await deliver(base, "ping", "d-3", "not-the-secret")).toBe(400);
    expect(await postOversized(base)).toBe(413);
    expect(await deliver(base, "issues", "d-4")).toBe(500);
    await hangUpMidBody(base);
    // The last answers are counted when their connections close, after the client has moved on.
    await vi.waitFor(async () => expect((await scrape(base)).value("magis_webhook_answer_seconds_count")).toBe(6), { timeout: 5_000, interval: 50 });

    const text = await scrape(base);
    expect(text.value("magis_webhooks_total", { outcome: "recorded", role: "web" })).toBe(1);
    expect(text.value("magis_webhooks_total", { outcome: "redelivery" })).toBe(1);
    expect(text.value("magis_webhooks_total", { outcome: "refused" })).toBe(2);
    expect(text.value("magis_webhooks_total", { outcome: "failed" })).toBe(2);
    // Every answer came within GitHub's 10 s, and took some time.
    expect(text.value("magis_webhook_answer_seconds_bucket", { le: "10" })).toBe(6);
    expect(text.value("magis_webhook_answer_seconds_sum")).toBeGreaterThan(0);
    // Scrapes and probes are not deliveries.
    await fetch(`${base}/healthz`);
    expect((await scrape(base)).value("magis_webhook_answer_seconds_count")).toBe(6);
  });

  it("serves /healthz, /readyz and /metrics before the 404, logging them at debug level only", async () => {
    const logs: string[] = [];
    let ready = false;
    const base = await serveWebhooks({
      metrics: createMetrics({ role: "web" }),
      ready: async () => {
        if (!ready) throw new Error("the job queue has not started");
      },
      logs,
    });
    logs.length = 0;
    const notReady = await fetch(`${base}/readyz`);
    expect([notReady.status, await notReady.json()]).toEqual([503, { error: "the job queue has not started" }]);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const healthz = await fetch(`${base}/healthz`);
    expect([healthz.status, await healthz.text()]).toEqual([200, "ok"]);
    expect((await scrape(base)).type.get("magis_webhooks_total")).toBe("counter");
    expect((await fetch(`${base}/nothing-here`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = logs.map((line) => JSON.parse(line));
    const requests = lines.filter((line) => typeof line.status === "number");
    expect(requests.filter((line) => line.level === 20).map((line) => line.msg.split(" ").slice(0, 3).join(" "))).toEqual([
      "GET /readyz 503",
      "GET /readyz 200",
      "GET /healthz 200",
      "GET /metrics 200",
    ]);
    expect(requests.filter((line) => line.level > 20).map((line) => line.msg.split(" ").slice(0, 3).join(" "))).toEqual(["GET /nothing-here 404"]);
  });

  it("without metrics or a readiness check still answers /healthz and /ping, and 404 to /metrics and /readyz", async () => {
    const base = await serveWebhooks();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/ping`)).text()).toBe("PONG");
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/readyz`)).status).toBe(404);
    expect(await deliver(base, "ping", "d-1")).toBe(200);
  });
});
