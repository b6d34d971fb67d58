import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { labeledPayload } from "../../e2e/payloads.js";
import { sign } from "../../e2e/start-app.js";
import { freePort } from "../../support/free-port.js";
import { appPrivateKey } from "../../support/app-private-key.js";

let server: RunningServer | undefined;
const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The settings of `magis serve` with app credentials on `port` of 127.0.0.1, its database and work folder in a new
 * folder (its own: the app sweeps the kept objects there when it starts).
 */
function appSettings(port: number): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-serve-"));
  dirs.push(dir);
  return {
    HOST: "127.0.0.1",
    PORT: String(port),
    NODE_ENV: "test",
    APP_ID: "1",
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: "s3cret",
    MAGIS_DB: path.join(dir, "magis.db"),
    MAGIS_WORKDIR: dir,
  };
}

/** `magis serve` with app credentials on a free port of 127.0.0.1; `logs` gets every line it writes (debug and up). */
async function serveApp(logs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const port = await freePort();
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  server = await startServer({ ...appSettings(port), ...env }, { log });
  return `http://127.0.0.1:${port}/api/github/webhooks`;
}

const MB = 1024 * 1024;
const webhookHeaders = {
  "content-type": "application/json",
  "x-github-event": "ping",
  "x-github-delivery": "big-1",
  "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
};

/** What a large POST got: the answer, and how much of the body had been handed to the socket when the answer came. */
interface LargePost {
  status: number;
  sentWhenAnswered: number;
  ms: number;
  /** Highest growth of this process's RSS while the request ran (the server runs in this process too). */
  rssGrowth: number;
}

/**
 * POSTs `totalBytes` of filler, 1 MB at a time with backpressure (the client holds one chunk only), declared by
 * Content-Length or sent chunked; stops writing once an answer's status line arrives. Written on a raw socket:
 * nock's http interception would buffer the whole body in this process before passing it on. A server that does
 * not answer fails the call after 20 s.
 */
function postLarge(url: string, totalBytes: number, framing: "content-length" | "chunked"): Promise<LargePost> {
  const { hostname, port, pathname } = new URL(url);
  const chunk = Buffer.alloc(MB, " ");
  const started = Date.now();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  return new Promise<LargePost>((resolve, reject) => {
    let sent = 0;
    let received = "";
    let answer: { status: number; sentWhenAnswered: number } | undefined;
    const finish = (error?: Error) => {
      clearInterval(sampler);
      clearTimeout(bound);
      socket.destroy();
      if (!answer) return reject(error ?? new Error(`the connection closed without an answer after ${sent / MB} MB`));
      resolve({ ...answer, ms: Date.now() - started, rssGrowth: Math.max(rssPeak, process.memoryUsage().rss) - rssBefore });
    };
    const bound = setTimeout(() => finish(new Error(`no answer within 20 s after sending ${sent / MB} MB`)), 20_000);
    const socket = net.connect(Number(port), hostname);
    socket.on("data", (data) => {
      received += data.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (status && !answer) answer = { status: Number(status[1]), sentWhenAnswered: sent };
      if (answer && received.includes("\r\n\r\n")) finish();
    });
    // Writing into a connection the server has closed fails; that is expected once the answer is in.
    socket.on("error", (error) => finish(answer ? undefined : error));
    socket.on("close", () => finish());
    const framingHeader = framing === "content-length" ? `content-length: ${totalBytes}` : "transfer-encoding: chunked";
    const head = [`POST ${pathname} HTTP/1.1`, `host: ${hostname}:${port}`, framingHeader, ...Object.entries(webhookHeaders).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    const write = () => {
      while (!answer && sent < totalBytes) {
        sent += chunk.length;
        const framed = framing === "chunked" ? [Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")] : [chunk];
        const ok = framed.map((part) => socket.write(part)).every(Boolean);
        if (!ok) return void socket.once("drain", write);
      }
      if (!answer && framing === "chunked") socket.write("0\r\n\r\n");
    };
    socket.once("connect", write);
  });
}

function report(label: string, post: LargePost) {
  console.log(
    `${label}: ${post.status} after ${post.ms} ms, ${(post.sentWhenAnswered / MB).toFixed(0)} MB sent when answered, RSS grew ${(post.rssGrowth / MB).toFixed(0)} MB`,
  );
}

describe("magis serve", () => {
  it("refuses a mistyped setting before it serves: the message names it, no database is made, nothing listens, and the settings corrected start", async () => {
    const settings: Array<[string, string, string]> = [
      [
        "PORT",
        "http",
        "PORT is 'http': set it to the port the server listens on, 0 for any free one (a whole number, from 0 to 65535), or leave it unset for 3000",
      ],
      [
        "MAGIS_JOBS_CONCURRENCY",
        "two",
        "MAGIS_JOBS_CONCURRENCY is 'two': set it to the jobs one process runs at once (a whole number, 1 or more), or leave it unset for 2",
      ],
      ["MAGIS_SHUTDOWN_GRACE_SECONDS", "-1", "MAGIS_SHUTDOWN_GRACE_SECONDS is '-1'"],
      ["MAGIS_OBJECT_CACHE_MB", "1e3", "MAGIS_OBJECT_CACHE_MB is '1e3'"],
      ["MAGIS_LLM_TIMEOUT_MS", "2m", "MAGIS_LLM_TIMEOUT_MS is '2m'"],
      ["MAGIS_WORKER_LOST_SECONDS", "1", "MAGIS_WORKER_LOST_SECONDS is '1'"],
      ["MAGIS_GIT_TIMEOUT_MS", "0x10", "MAGIS_GIT_TIMEOUT_MS is '0x10'"],
      ["LOG_LEVEL", "loud", "LOG_LEVEL is 'loud': set it to one of trace, debug, info, warn, error, fatal, silent, or leave it unset for info"],
      ["LOG_LEVEL", "postgres://u:hunter2@db/magis", "LOG_LEVEL holds 29 characters that are not a level (not shown"],
      ["APP_ID", "my-app", "APP_ID is 'my-app': set it to the App ID shown on the GitHub App's settings page (a whole number, 1 or more)"],
      ["PRIVATE_KEY", "not a key", "PRIVATE_KEY does not hold a private key: set it to the whole text of the .pem file GitHub gave"],
      [
        "PRIVATE_KEY",
        "-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0IGJ1dCBub3QgYSBrZXk=\n-----END RSA PRIVATE KEY-----\n",
        "PRIVATE_KEY is not a private key that can sign",
      ],
    ];
    for (const [name, value, message] of settings) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...appSettings(port), LOG_LEVEL: "silent" };
      const refused = await startServer({ ...env, [name]: value }).then(
        () => "started",
        (error: Error) => error.message,
      );
      expect(refused, name).toContain(message);
      // A value that could be a secret is not repeated.
      if (value.length > 20) expect(refused, name).not.toContain(value.trim().slice(0, 24));
      // No database was made, and nothing was left listening on the port; the same settings, corrected, start.
      expect(fs.existsSync(env.MAGIS_DB!), name).toBe(false);
      const probe = net.createServer();
      await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port, "127.0.0.1", resolve));
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      server = await startServer(env);
      await server.stop();
      server = undefined;
    }
  });

  it("with credentials serves signed webhooks and refuses unsigned ones", async () => {
    const url = await serveApp();
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const post = (signature: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "p1", "x-hub-signature-256": signature },
        body,
      });
    expect((await post(sign("s3cret", body))).status).toBe(200);
    expect((await post(sign("wrong", body))).status).toBe(400);
    expect(fs.existsSync(path.join(dirs[0]!, "magis.db"))).toBe(true);
    expect((await fetch(url.replace("/api/github/webhooks", "/ping"))).status).toBe(200);
  });

  it("refuses a body whose Content-Length is over GitHub's 25 MB cap with 413, before it has arrived, logging it once", async () => {
    const logs: string[] = [];
    const url = await serveApp(logs);
    logs.length = 0;
    const post = await postLarge(url, 50 * MB, "content-length");
    report("50 MB, Content-Length", post);
    expect(post.status).toBe(413);
    expect(post.sentWhenAnswered).toBeLessThan(50 * MB);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const warnings = logs.map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ delivery: "big-1", status: 413 });
    expect(warnings[0].reason).toContain("GitHub's limit for a webhook payload");
  }, 30_000);

  it("refuses a chunked body with 413 once it grows past 25 MB, without reading the rest", async () => {
    const url = await serveApp();
    const post = await postLarge(url, 50 * MB, "chunked");
    report("50 MB, chunked", post);
    expect(post.status).toBe(413);
    expect(post.sentWhenAnswered).toBeLessThan(50 * MB);
  }, 30_000);

  it("keeps the 413 for a client that reads it only after sending more, closing the connection once the client has read it", async () => {
    const url = await serveApp();
    const { hostname, port, pathname } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    cleanups.push(async () => void socket.destroy());
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.pause();
    const head = [
      `POST ${pathname} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `content-length: ${50 * MB}`,
      ...Object.entries(webhookHeaders).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    // The answer arrives while the client, not reading, goes on sending.
    const errors: string[] = [];
    socket.on("error", (error) => errors.push(error.message));
    for (let i = 0; i < 20; i++) {
      socket.write(Buffer.alloc(64 * 1024, " "));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    let received = "";
    socket.on("data", (data) => (received += data.toString("latin1")));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.resume();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(errors).toEqual([]);
    socket.end();
    await closed;
  });

  it("logs a webhook with a bad signature once, as a warning that says why, and never its body", async () => {
    const logs: string[] = [];
    const url = await serveApp(logs);
    logs.length = 0;
    const body = JSON.stringify({ zen: "PAYLOAD-MARKER", hook_id: 1 });
    const response = await fetch(url, {
      method: "POST",
      headers: { ...webhookHeaders, "x-github-delivery": "bad-1", "x-hub-signature-256": sign("wrong", body) },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("WEBHOOK_SECRET");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logs.filter((line) => line.includes("PAYLOAD-MARKER"))).toEqual([]);
    const warnings = logs.map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ delivery: "bad-1", status: 400 });
    expect(warnings[0].reason).toContain("signature does not match");
  });

  it("bounds the app's GitHub calls by MAGIS_GITHUB_TIMEOUT_MS: a webhook handled against a GitHub that never answers logs the timeout", async () => {
    const sockets = new Set<net.Socket>();
    const github = http.createServer(() => undefined).on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => github.close(resolve));
    });
    const logs: string[] = [];
    const host = `127.0.0.1:${(github.address() as net.AddressInfo).port}`;
    const url = await serveApp(logs, { GHE_HOST: host, GHE_PROTOCOL: "http", MAGIS_GITHUB_TIMEOUT_MS: "300" });
    const body = JSON.stringify(labeledPayload({ installationId: 7 }));
    await fetch(url, {
      method: "POST",
      headers: { ...webhookHeaders, "x-github-event": "issues", "x-github-delivery": "slow-1", "x-hub-signature-256": sign("s3cret", body) },
      body,
    });
    const timedOut = new RegExp(`GitHub did not answer POST http://${host.replace(/\./g, "\\.")}/api/v3/app/installations/7/access_tokens within 300 ms`);
    await vi.waitFor(() => expect(logs.some((line) => timedOut.test(line))).toBe(true), { timeout: 10_000, interval: 50 });
  }, 20_000);
});
