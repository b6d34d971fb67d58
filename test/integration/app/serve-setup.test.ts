import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { pino } from "pino";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import { withEnvFile } from "../../../src/lib/read-env-file.js";
import { sign } from "../../e2e/start-app.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { freePort } from "../../support/free-port.js";
import { startScriptedModel } from "../../support/scripted-model.js";

const servers: { stop(): Promise<void> }[] = [];
const dirs: string[] = [];
// Every request that tried to leave 127.0.0.1 (nock refuses them): a setup page must reach no third party.
let leftLoopback: string[] = [];
const noteEscape = (request: { options?: { host?: string; hostname?: string }; host?: string }) => {
  const host = String(request.options?.hostname ?? request.options?.host ?? request.host);
  if (!/^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host)) leftLoopback.push(host);
};
beforeEach(() => {
  leftLoopback = [];
  nock.emitter.on("no match", noteEscape);
});
afterEach(async () => {
  nock.emitter.removeListener("no match", noteEscape);
  for (const server of servers.splice(0).reverse()) await server.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-setup-"));
  dirs.push(dir);
  return dir;
}

/** `magis serve` without app credentials on a free port of 127.0.0.1, its .env in a new folder; `logs` gets every line. */
async function serveSetup(env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const envFile = path.join(dir, ".env");
  const port = await freePort();
  const logs: string[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  const server = await startServer({ HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "test", ...env }, { log, envFile });
  servers.push(server);
  return { base: `http://127.0.0.1:${port}`, port, dir, envFile, logs };
}

/** The manifest the setup page's form posts to GitHub, and the form's action. */
async function registerForm(base: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/`, { headers });
  expect(response.status).toBe(200);
  const html = await response.text();
  const value = /name="manifest" value="([^"]*)"/.exec(html)![1]!;
  const manifest = JSON.parse(
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&"),
  );
  const action = /<form id="register" method="post" action="([^"]*)"/.exec(html)![1]!.replace(/&amp;/g, "&");
  return { html, manifest, action };
}

const HELP_LINK = /href="(https:\/\/github\.com\/magis-bot\/magis-bot\/blob\/main\/docs\/[a-z-]+\.md[^"]*)"/g;

describe("magis serve without the app's credentials", () => {
  it("serves the setup page offline: the manifest's webhook is /api/github/webhooks, the page and the log say what to set and where, and nothing is reached beyond 127.0.0.1", async () => {
    const { base, port, envFile, logs } = await serveSetup();
    const { html, manifest, action } = await registerForm(base);
    expect(manifest.hook_attributes).toEqual({ url: `http://127.0.0.1:${port}/api/github/webhooks`, active: true });
    expect(manifest.redirect_url).toBe(`http://127.0.0.1:${port}/setup/registered`);
    // A sign-in could not come back to 127.0.0.1 for anyone else: no callback is registered for the session pages.
    expect(manifest).not.toHaveProperty("callback_urls");
    // The rest is app.yml's, as GitHub is to register it.
    const appYml = parse(fs.readFileSync("app.yml", "utf8"));
    expect(manifest).toMatchObject({ name: "MAGIS", default_events: appYml.default_events, default_permissions: appYml.default_permissions });
    expect(action).toMatch(/^https:\/\/github\.com\/settings\/apps\/new\?state=[0-9a-f]{32}$/);
    // GitHub cannot deliver to 127.0.0.1: the page says so, and what to set.
    expect(html).toContain("GitHub cannot deliver webhooks here yet.");
    expect(html).toContain("WEBHOOK_PROXY_URL");
    expect(html).toContain(envFile);
    // Its help is this project's docs, not Probot's.
    expect([...html.matchAll(HELP_LINK)].map((m) => m[1])).toEqual(
      expect.arrayContaining([expect.stringContaining("docs/app.md"), expect.stringContaining("docs/deploy.md")]),
    );
    expect(html).not.toMatch(/probot\.github\.io|probot\/probot/);

    // The page for an app registered already names the webhook URL to set on GitHub, and the three settings.
    const existing = await fetch(`${base}/setup/existing`);
    expect(existing.status).toBe(200);
    const existingHtml = await existing.text();
    expect(existingHtml).toContain(`<code>http://127.0.0.1:${port}/api/github/webhooks</code>`);
    for (const name of ["APP_ID=", "PRIVATE_KEY_PATH=", "WEBHOOK_SECRET="]) expect(existingHtml).toContain(name);
    expect(existingHtml).toContain(envFile);

    // The log says the same at the start, and does not ask for a restart that cannot help.
    const text = logs.join("");
    expect(text).toContain("setup mode: the GitHub App is not registered");
    for (const name of ["APP_ID", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "WEBHOOK_PROXY_URL", envFile]) expect(text).toContain(name);
    expect(text).not.toMatch(/smee\.io, try restarting|Welcome to Probot/);

    // Probes answer, and readiness says why not.
    expect(await (await fetch(`${base}/healthz`)).text()).toBe("ok");
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).error).toMatch(/^the GitHub App is not registered: .*APP_ID, PRIVATE_KEY_PATH and WEBHOOK_SECRET/);
    expect(leftLoopback).toEqual([]);
    expect(fs.existsSync(envFile)).toBe(false);
  });

  it("registers the webhook at WEBHOOK_PROXY_URL when it is set, and at the public address the page was opened at", async () => {
    const proxied = await serveSetup({ WEBHOOK_PROXY_URL: "https://smee.io/aBcD1234" });
    const viaProxy = await registerForm(proxied.base);
    expect(viaProxy.manifest.hook_attributes.url).toBe("https://smee.io/aBcD1234");
    expect(viaProxy.html).not.toContain("GitHub cannot deliver webhooks here yet.");
    expect(proxied.logs.join("")).not.toContain("cannot reach localhost");

    const direct = await serveSetup();
    const viaAddress = await registerForm(direct.base, { "x-forwarded-proto": "https", "x-forwarded-host": "magis.example.com" });
    expect(viaAddress.manifest.hook_attributes.url).toBe("https://magis.example.com/api/github/webhooks");
    expect(viaAddress.manifest.redirect_url).toBe("https://magis.example.com/setup/registered");
    // The session pages' "Sign in with GitHub" comes back to the public address; behind a webhook proxy it is unknown.
    expect(viaAddress.manifest.callback_urls).toEqual(["https://magis.example.com/auth/github/callback"]);
    expect(viaProxy.manifest).not.toHaveProperty("callback_urls");
    expect(viaAddress.html).not.toContain("GitHub cannot deliver webhooks here yet.");
    expect(leftLoopback).toEqual([]);
  });

  it("takes GitHub's code once, writes the key file and .env, and started again serves the registered app", async () => {
    const pem = appPrivateKey();
    const github = await startManifestConversions({ pem });
    const model = await startScriptedModel();
    servers.push({ stop: () => model.close() });
    const { base, dir, envFile, logs } = await serveSetup({ GHE_HOST: github.host, GHE_PROTOCOL: "http" });
    fs.writeFileSync(envFile, `# the maintainer's\nMAGIS_DB=${path.join(dir, "magis.db")}\nMAGIS_WORKDIR=${dir}\nOPENAI_BASE_URL=${model.url}\n`);
    const { action } = await registerForm(base);
    expect(action).toMatch(new RegExp(`^http://${github.host}/settings/apps/new\\?state=`));
    const state = new URL(action).searchParams.get("state")!;

    // A code this server did not ask for (no state, or another one) is not exchanged.
    for (const query of ["code=abc", `code=abc&state=${"0".repeat(32)}`]) {
      const refused = await fetch(`${base}/setup/registered?${query}`);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain("register the app from the setup page");
    }
    expect(github.codes).toEqual([]);

    // GitHub sends the browser back to the address the page was opened at: the public one, behind a reverse proxy.
    const done = await fetch(`${base}/setup/registered?code=the-code&state=${state}`, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "magis.example.com" },
    });
    expect(done.status).toBe(200);
    const page = await done.text();
    expect(github.codes).toEqual(["the-code"]);
    expect(page).toContain("App ID 4242");
    expect(page).toContain(`href="http://${github.host}/apps/magis-test/installations/new"`);
    expect(page).toContain("MAGIS_MODEL");
    const keyFile = fs.readdirSync(dir).find((name) => name.endsWith(".private-key.pem"))!;
    expect(keyFile).toMatch(/^magis-test\.\d{4}-\d{2}-\d{2}\.private-key\.pem$/);
    expect(fs.readFileSync(path.join(dir, keyFile), "utf8")).toBe(pem);
    expect(fs.statSync(path.join(dir, keyFile)).mode & 0o777).toBe(0o600);
    const written = fs.readFileSync(envFile, "utf8");
    expect(written).toMatch(/^# the maintainer's\nMAGIS_DB=/);
    expect(written).toContain(`\nAPP_ID=4242\nPRIVATE_KEY_PATH=${path.join(dir, keyFile)}\nWEBHOOK_SECRET=whs-0123456789abcdef\n`);
    // With the client's id and secret, the public address turns the session pages on (their sign-in comes back there).
    expect(written).toContain("\nGITHUB_CLIENT_ID=");
    expect(written).toContain("\nMAGIS_PUBLIC_URL=https://magis.example.com\n");
    expect(logs.join("")).toContain(`registered the GitHub App MAGIS test (App ID 4242): wrote its settings to ${envFile}`);
    expect(logs.join("")).not.toContain("whs-0123456789abcdef");
    // GitHub takes a code once; the page does not write the settings twice.
    expect((await fetch(`${base}/setup/registered?code=the-code&state=${state}`)).status).toBe(409);
    expect(github.codes).toEqual(["the-code"]);

    await servers.pop()!.stop();
    const { env } = withEnvFile({ HOST: "127.0.0.1", NODE_ENV: "test", PORT: "0", LOG_LEVEL: "silent" }, envFile, { required: true });
    const registered = await startServer(env, { envFile });
    servers.push(registered);
    const body = JSON.stringify({ zen: "Design for failure.", hook_id: 1, hook: { type: "App" } });
    const delivered = await fetch(`http://127.0.0.1:${registered.port}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "ping",
        "x-github-delivery": "d-setup",
        "x-hub-signature-256": sign("whs-0123456789abcdef", body),
      },
      body,
    });
    expect(delivered.status).toBe(200);
    expect(leftLoopback).toEqual([]);
  });

  it("in production stops the start naming the settings to set, and listens on nothing", async () => {
    const port = await freePort();
    const envFile = path.join(tempDir(), ".env");
    const started = startServer({ HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "production", LOG_LEVEL: "silent" }, { envFile });
    await expect(started).rejects.toThrow(
      `NODE_ENV is production, and the app is not registered: set APP_ID, PRIVATE_KEY_PATH (or PRIVATE_KEY) and WEBHOOK_SECRET of a registered GitHub App (in ${envFile} or the environment)`,
    );
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});

/** GitHub's POST /app-manifests/{code}/conversions on 127.0.0.1 (as a GitHub Enterprise Server's /api/v3), answering for one app. */
async function startManifestConversions(app: { pem: string }) {
  const codes: string[] = [];
  const server = http.createServer((request, response) => {
    const code = /^\/api\/v3\/app-manifests\/([^/]+)\/conversions$/.exec(request.url ?? "")?.[1];
    if (request.method !== "POST" || !code) return void response.writeHead(404).end();
    codes.push(code);
    const host = request.headers.host;
    // The fields of GitHub's answer (201, "GitHub App from manifest") the setup page reads, with the rest it sends.
    const data = {
      id: 4242,
      slug: "magis-test",
      node_id: "A_kwDOAAAB",
      name: "MAGIS test",
      html_url: `http://${host}/apps/magis-test`,
      client_id: "Iv23liQ4xSmPlAcEhOlD",
      client_secret: "0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6",
      webhook_secret: "whs-0123456789abcdef",
      pem: app.pem,
      owner: { login: "octo", id: 1, type: "User" },
      permissions: { contents: "write", issues: "write" },
      events: ["issues"],
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
    };
    response.writeHead(201, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(data));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  servers.push({ stop });
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, codes };
}
