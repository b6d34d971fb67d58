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
  options: {
    metrics?: MagisMetrics;
    ready?: () => Promise<void>;
    logs?: string[];
    redelivered?: (delivery: string) => boolean;
    bodyLimits?: { totalBytes: number; perClientBytes: number };
    timeouts?: { headersMs: number; requestMs: number };
    /** Given the Probot instance as the app loads, before the server serves (to watch it). */
    watch?: (probot: Probot) => void;
    /** Gets the payload of every `ping` the app's handler takes. */
    pings?: unknown[];
  } = {},
): Promise<string> {
  const privateKey = appPrivateKey();
  const log = pino({ level: "debug" }, { write: (line: string) => void options.logs?.push(line) });
  const probot = new Probot({ appId: 1, privateKey, secret: SECRET, log });
  const app = (probot: Probot) => {
    probot.on("issues", () => {
      throw new Error("the handler failed");
    });
    probot.on("ping", (context) => void options.pings?.push(context.payload));
    options.watch?.(probot);
  };
  server = await startWebhookServer({
    probot,
    app,
    host: "127.0.0.1",
    port: 0,
    metrics: options.metrics,
    ready: options.ready,
    redelivered: options.redelivered,
    bodyLimits: options.bodyLimits,
    timeouts: options.timeouts,
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

/** POSTs `body`, signed with the server's secret, with `headers` over a delivery's; the status and the answer's text. */
async function post(base: string, body: string, headers: Record<string, string>): Promise<[number, string]> {
  const response = await fetch(`${base}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-github-delivery": "p-1",
      "x-hub-signature-256": sign(SECRET, body),
      ...headers,
    },
    body,
  });
  return [response.status, await response.text()];
}

/** A POST that declares a body over GitHub's cap and sends none of it; resolves to the status of the answer. */
function postOversized(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "ping",
        "x-github-delivery": "big-1",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
        "content-length": MAX_WEBHOOK_BYTES + 1,
      },
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
    `POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-github-event: ping\r\nx-hub-signature-256: sha256=${"0".repeat(64)}\r\ncontent-length: 100\r\n\r\n{"zen":`,
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

  it("checks a delivery's signature once and hands its payload, parsed, to the handlers", async () => {
    const pings: unknown[] = [];
    const checks: { verify?: ReturnType<typeof vi.spyOn>; verifyAndReceive?: ReturnType<typeof vi.spyOn> } = {};
    const base = await serveWebhooks({
      pings,
      watch: (probot) => {
        checks.verify = vi.spyOn(probot.webhooks, "verify");
        checks.verifyAndReceive = vi.spyOn(probot.webhooks, "verifyAndReceive");
      },
    });
    expect(await deliver(base, "ping", "d-1")).toBe(200);
    expect(pings).toEqual([{ zen: "Keep it logically awesome.", hook_id: 1, action: "opened" }]);
    // The guard's check, and no second one by Probot's middleware.
    expect(checks.verify).toHaveBeenCalledTimes(1);
    expect(checks.verifyAndReceive).not.toHaveBeenCalled();
  });

  it("answers a signed delivery that is not JSON, or names no event, as Probot's middleware does", async () => {
    const base = await serveWebhooks();
    expect((await post(base, "{}", { "content-type": "text/plain" }))[0]).toBe(415);
    const [status, text] = await post(base, "{not json", {});
    expect([status, JSON.parse(text)]).toEqual([400, { error: "the body is not valid JSON" }]);
    expect((await post(base, "{}", { "x-github-event": "" }))[0]).toBe(400);
    expect(await post(base, "{}", {})).toEqual([200, "ok\n"]);
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

/**
 * Opens a POST of a webhook whose body is `bytes` long (signed with `signature`, or not signed), sends `sendFirst` bytes
 * of it and holds the rest; resolves with the answer's status (or "closed" when the server hung up without one).
 */
function openDelivery(base: string, options: { bytes: number; sendFirst: number; signature?: string }): Promise<number | "closed"> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (!status) return;
      resolve(Number(status[1]));
      socket.destroy();
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve("closed"));
    socket.once("connect", () => {
      const signature = options.signature === undefined ? "" : `x-hub-signature-256: ${options.signature}\r\n`;
      socket.write(
        `POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-github-event: ping\r\nx-github-delivery: d\r\n${signature}content-length: ${options.bytes}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(options.sendFirst, 0x20));
    });
  });
}

/** Starts a delivery as openDelivery does and leaves it hanging; the test destroys the socket. */
function holdDelivery(base: string, options: { bytes: number; sendFirst: number; signature: string }): net.Socket {
  const socket = net.connect(Number(new URL(base).port), "127.0.0.1");
  socket.on("error", () => {});
  socket.once("connect", () => {
    socket.write(
      `POST /api/github/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\nx-github-event: ping\r\nx-hub-signature-256: ${options.signature}\r\ncontent-length: ${options.bytes}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(options.sendFirst, 0x20));
  });
  return socket;
}

describe("the webhook server against bodies nobody signed", () => {
  it("refuses a delivery without a signature before reading its body", async () => {
    const logs: string[] = [];
    const base = await serveWebhooks({ logs });
    // 20 MB declared, 1 MB sent: the answer comes without the rest, and the connection closes.
    expect(await openDelivery(base, { bytes: 20 * 1024 * 1024, sendFirst: 1024 * 1024 })).toBe(400);
    expect(logs.some((line) => line.includes("has no X-Hub-Signature-256 header"))).toBe(true);
  });

  it("holds at most its budget of unverified bodies, per client and in all, answering 503 past it and giving it back", async () => {
    const base = await serveWebhooks({ bodyLimits: { totalBytes: 3 * 1024 * 1024, perClientBytes: 2 * 1024 * 1024 } });
    const forged = `sha256=${"0".repeat(64)}`;
    // The first holds 1.5 MB of a 1.9 MB body; a second from the same client would pass its 2 MB.
    const first = holdDelivery(base, { bytes: 1_900_000, sendFirst: 1_500_000, signature: forged });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await openDelivery(base, { bytes: 1_000_000, sendFirst: 1_000_000, signature: forged })).toBe(503);
    // A small one fits, is read whole, and is refused for its signature.
    expect(await openDelivery(base, { bytes: 300_000, sendFirst: 300_000, signature: forged })).toBe(400);
    // The first client gives up: what its body held is given back, and a large body fits again.
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await openDelivery(base, { bytes: 1_900_000, sendFirst: 1_900_000, signature: forged })).toBe(400);
  });

  it("answers 503 to a body past what all clients together may hold", async () => {
    const base = await serveWebhooks({ bodyLimits: { totalBytes: 1024 * 1024, perClientBytes: 2 * 1024 * 1024 } });
    expect(await openDelivery(base, { bytes: 1_500_000, sendFirst: 1_500_000, signature: `sha256=${"0".repeat(64)}` })).toBe(503);
  });

  it("closes a connection that stalls in its headers or its body", async () => {
    const base = await serveWebhooks({ timeouts: { headersMs: 300, requestMs: 600 } });
    const stalled = await openDelivery(base, { bytes: 1000, sendFirst: 10, signature: `sha256=${"0".repeat(64)}` });
    expect(stalled === "closed" || stalled === 408).toBe(true);
  });
});
