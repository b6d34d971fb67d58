import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createMetrics, type MetricsOptions, type QueueDepth } from "../../../src/server/metrics.js";
import { startOpsServer } from "../../../src/server/start-ops-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { parsePrometheusText } from "../../support/parse-prometheus-text.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

/** The worker role's ops server on a free port of 127.0.0.1; `logs` gets every line it writes. */
async function serveOps(options: { metrics?: MetricsOptions; ready?: () => Promise<void>; logs?: string[] } = {}) {
  const metrics = createMetrics(options.metrics ?? { role: "worker" });
  const log = pino({ level: "debug" }, { write: (line: string) => void options.logs?.push(line) });
  const server = await startOpsServer({ host: "127.0.0.1", port: 0, metrics, ready: options.ready ?? (async () => undefined), log });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const scrape = async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    return parsePrometheusText(await response.text());
  };
  return { metrics, base, scrape };
}

describe("the worker role's ops server", () => {
  it("serves every MAGIS metric in Prometheus text, with the role label, HELP text, counts and histogram buckets", async () => {
    const depth: QueueDepth[] = [
      { kind: "resolve", status: "queued", count: 3 },
      { kind: "resolve", status: "running", count: 2 },
      { kind: "revise", status: "queued", count: 1 },
    ];
    const { metrics, base, scrape } = await serveOps({ metrics: { role: "worker", queueDepth: async () => depth } });
    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    await response.text();

    metrics.jobStarted("resolve");
    metrics.jobStarted("resolve");
    metrics.jobStarted("revise");
    metrics.jobFinished("resolve", "succeeded", 42);
    metrics.jobFinished("revise", "failed", 700);
    // A lost job ran in another process: it is counted, and this process's running jobs stay as they were.
    metrics.jobFinished("resolve", "lost", 95);
    metrics.modelUsage("developer", { calls: 3, promptTokens: 1200, completionTokens: 300 });
    metrics.modelUsage("developer", { calls: 1, promptTokens: 100, completionTokens: 50 });
    metrics.modelUsage("qa", { calls: 2, promptTokens: 800, completionTokens: 40 });
    metrics.webhookAnswered("recorded", 0.004);
    metrics.webhookAnswered("recorded", 0.03);
    metrics.webhookAnswered("refused", 0.0005);
    const text = await scrape();

    for (const [name, type] of [
      ["magis_jobs", "gauge"],
      ["magis_store_up", "gauge"],
      ["magis_job_duration_seconds", "histogram"],
      ["magis_jobs_finished_total", "counter"],
      ["magis_jobs_running_here", "gauge"],
      ["magis_model_tokens_total", "counter"],
      ["magis_model_calls_total", "counter"],
      ["magis_webhooks_total", "counter"],
      ["magis_webhook_answer_seconds", "histogram"],
    ]) {
      expect(text.type.get(name!), name).toBe(type);
      expect(text.help.get(name!)?.length, name).toBeGreaterThan(20);
    }
    expect(text.samples.every((sample) => sample.labels.role === "worker")).toBe(true);
    expect(text.value("magis_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(text.select("magis_nodejs_eventloop_lag_seconds")).toHaveLength(1);

    expect(text.value("magis_store_up")).toBe(1);
    expect(text.select("magis_jobs").map(({ labels, value }) => [labels.kind, labels.status, value])).toEqual([
      ["resolve", "queued", 3],
      ["resolve", "running", 2],
      ["revise", "queued", 1],
    ]);
    expect(text.value("magis_jobs_running_here", { kind: "resolve" })).toBe(1);
    expect(text.value("magis_jobs_running_here", { kind: "revise" })).toBe(0);
    expect(text.value("magis_jobs_finished_total", { kind: "resolve", outcome: "succeeded" })).toBe(1);
    expect(text.value("magis_jobs_finished_total", { kind: "resolve", outcome: "lost" })).toBe(1);
    expect(text.value("magis_jobs_finished_total", { kind: "revise", outcome: "failed" })).toBe(1);

    const succeeded = { kind: "resolve", outcome: "succeeded" };
    const buckets = text.select("magis_job_duration_seconds_bucket", succeeded).map(({ labels, value }) => [labels.le, value]);
    expect(buckets).toEqual([
      ["5", 0],
      ["10", 0],
      ["30", 0],
      ["60", 1],
      ["120", 1],
      ["300", 1],
      ["600", 1],
      ["900", 1],
      ["1200", 1],
      ["1800", 1],
      ["2700", 1],
      ["3600", 1],
      ["+Inf", 1],
    ]);
    expect(text.value("magis_job_duration_seconds_sum", succeeded)).toBe(42);
    expect(text.value("magis_job_duration_seconds_bucket", { kind: "revise", outcome: "failed", le: "600" })).toBe(0);
    expect(text.value("magis_job_duration_seconds_bucket", { kind: "revise", outcome: "failed", le: "900" })).toBe(1);

    expect(text.value("magis_model_calls_total", { agent: "developer" })).toBe(4);
    expect(text.value("magis_model_calls_total", { agent: "qa" })).toBe(2);
    expect(text.value("magis_model_tokens_total", { agent: "developer", direction: "prompt" })).toBe(1300);
    expect(text.value("magis_model_tokens_total", { agent: "developer", direction: "completion" })).toBe(350);
    expect(text.value("magis_model_tokens_total", { agent: "qa", direction: "completion" })).toBe(40);

    expect(text.value("magis_webhooks_total", { outcome: "recorded" })).toBe(2);
    expect(text.value("magis_webhooks_total", { outcome: "refused" })).toBe(1);
    const answered = text.select("magis_webhook_answer_seconds_bucket").map(({ labels, value }) => [labels.le, value]);
    expect(answered).toEqual([
      ["0.001", 1],
      ["0.0025", 1],
      ["0.005", 2],
      ["0.01", 2],
      ["0.025", 2],
      ["0.05", 3],
      ["0.1", 3],
      ["0.25", 3],
      ["0.5", 3],
      ["1", 3],
      ["2.5", 3],
      ["5", 3],
      ["10", 3],
      ["+Inf", 3],
    ]);
    expect(text.value("magis_webhook_answer_seconds_count")).toBe(3);
  });

  it("still answers a scrape when counting the queue fails or hangs: magis_store_up 0 and no stale queue counts", async () => {
    let count: () => Promise<QueueDepth[]> = async () => [{ kind: "resolve", status: "queued", count: 7 }];
    const { scrape } = await serveOps({ metrics: { role: "worker", queueDepth: () => count(), queueDepthTimeoutMs: 200 } });
    let text = await scrape();
    expect(text.value("magis_store_up")).toBe(1);
    expect(text.value("magis_jobs", { kind: "resolve", status: "queued" })).toBe(7);

    count = async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
    };
    text = await scrape();
    expect(text.value("magis_store_up")).toBe(0);
    expect(text.select("magis_jobs")).toEqual([]);

    count = () => new Promise(() => undefined);
    const started = Date.now();
    text = await scrape();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(text.value("magis_store_up")).toBe(0);
    expect(text.select("magis_jobs")).toEqual([]);

    count = async () => [{ kind: "revise", status: "running", count: 1 }];
    text = await scrape();
    expect(text.value("magis_store_up")).toBe(1);
    expect(text.select("magis_jobs").map(({ labels, value }) => [labels.kind, labels.status, value])).toEqual([["revise", "running", 1]]);
  });

  it("has no magis_jobs or magis_store_up without a queueDepth, and metrics of two processes in one never mix", async () => {
    const first = await serveOps({ metrics: { role: "web" } });
    const second = await serveOps({ metrics: { role: "worker" } });
    first.metrics.modelUsage("manager", { calls: 1, promptTokens: 10, completionTokens: 5 });
    // The CPU counter counts from its registry's start; the kernel accounts user time in ticks, so spin until one
    // lands, or a quick scrape reads 0.
    for (const started = process.cpuUsage().user; process.cpuUsage().user === started;);
    const [one, two] = [await first.scrape(), await second.scrape()];
    expect(one.select("magis_jobs")).toEqual([]);
    expect(one.select("magis_store_up")).toEqual([]);
    expect(one.value("magis_model_calls_total", { agent: "manager", role: "web" })).toBe(1);
    expect(two.select("magis_model_calls_total")).toEqual([]);
    expect(two.value("magis_process_cpu_user_seconds_total", { role: "worker" })).toBeGreaterThan(0);
  });

  it("answers /readyz 503 with what is not ready (no password in it) until the check passes, then 200, logging each change once", async () => {
    let failure: Error | undefined = new Error("the store did not answer: connect ECONNREFUSED postgres://magis:hunter2-secret@db:5432/magis");
    const logs: string[] = [];
    const { base } = await serveOps({
      ready: async () => {
        if (failure) throw failure;
      },
      logs,
    });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${base}/readyz`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: string };
      expect(body.error).toContain("the store did not answer");
      expect(body.error).not.toContain("hunter2");
    }
    failure = undefined;
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ready");
    const changes = logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.level >= 30)
      .map((line) => line.msg);
    expect(changes.filter((msg: string) => msg.startsWith("not ready"))).toHaveLength(1);
    expect(changes.filter((msg: string) => msg.startsWith("ready"))).toHaveLength(1);
    expect(logs.join("\n")).not.toContain("hunter2");
  });

  it("answers /readyz 503 when the check does not finish within 3 s", async () => {
    const { base } = await serveOps({ ready: () => new Promise(() => undefined) });
    const started = Date.now();
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: string }).error).toBe("the readiness check did not finish within 3000 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it("answers GET / with what it is: a worker, which takes no webhook", async () => {
    const { base } = await serveOps();
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: "MAGIS", role: "worker", webhooks: "none: a worker runs jobs and takes no webhook" });
  });

  it("answers /healthz and /ping, and 404 to anything else, webhooks included", async () => {
    const { base } = await serveOps();
    const healthz = await fetch(`${base}/healthz`);
    expect([healthz.status, await healthz.text()]).toEqual([200, "ok"]);
    const ping = await fetch(`${base}/ping`);
    expect([ping.status, await ping.text()]).toEqual([200, "PONG"]);
    for (const [method, path] of [
      ["POST", "/"],
      ["POST", "/api/github/webhooks"],
      ["POST", "/metrics"],
      ["GET", "/metricsx"],
    ]) {
      const response = await fetch(`${base}${path}`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(response.status, `${method} ${path}`).toBe(404);
      await response.text();
    }
  });
});
