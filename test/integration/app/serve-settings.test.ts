import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { sign } from "../../e2e/start-app.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { buildDist } from "../../support/build-dist.js";
import { freePort } from "../../support/free-port.js";
import { startScriptedModel } from "../../support/scripted-model.js";
import { startServeProcess, type ServeProcess } from "../../support/serve-process.js";

const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
let child: ServeProcess | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
  await server?.stop();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-serve-settings-"));
  dirs.push(dir);
  return dir;
}

/** A .env with the key's text in it (its newlines written \n), as Probot's setup page wrote it, and the model at `modelUrl`. */
function setupPageEnvFile(values: { pem: string; port: number; secret: string; dir: string; modelUrl: string }): string {
  return [
    "APP_ID=1046375",
    `PRIVATE_KEY="${values.pem.replace(/\n/g, "\\n")}"`,
    `WEBHOOK_SECRET=${values.secret}`,
    "GITHUB_CLIENT_ID=Iv23liQ4xSmPlAcEhOlD",
    "GITHUB_CLIENT_SECRET=0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6",
    "# added by the maintainer",
    `PORT=${values.port}`,
    `OPENAI_BASE_URL=${values.modelUrl}`,
    `MAGIS_DB=${path.join(values.dir, "magis.db")}`,
    `MAGIS_WORKDIR=${values.dir}`,
  ].join("\n");
}

describe("magis serve reads .env", () => {
  beforeAll(() => buildDist(), 180_000);

  // The README's setup: the setup page writes the credentials to .env, and `npm start` again must serve the app. It
  // came back in setup mode forever, as nothing read .env.
  it("started in a folder holding the setup page's .env, serves the registered app on the .env's port", async () => {
    const dir = tempDir();
    const port = await freePort();
    const secret = "a3f1c9e07b2d4e6f8a0b1c2d3e4f5a6b";
    // Ready once the model endpoint has answered.
    const model = await startScriptedModel();
    cleanups.push(() => model.close());
    fs.writeFileSync(path.join(dir, ".env"), setupPageEnvFile({ pem: appPrivateKey(), port, secret, dir, modelUrl: model.url }));
    child = await startServeProcess("all", { PATH: process.env.PATH, HOME: dir, LOG_LEVEL: "info" }, { cwd: dir, portFromEnvFile: port });
    expect(await (await fetch(`${child.url}/healthz`)).text()).toBe("ok");
    // A delivery signed with the .env's secret is taken: the app, not the setup page, answers.
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1, hook: { type: "App" } });
    const delivered = await fetch(`${child.url}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "d-env", "x-hub-signature-256": sign(secret, body) },
      body,
    });
    expect(delivered.status).toBe(200);
    const readLine = child
      .output()
      .split("\n")
      .find((line) => line.startsWith("magis serve: read "))!;
    for (const name of ["APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET", "PORT", "OPENAI_BASE_URL"]) expect(readLine).toContain(name);
    expect(readLine).toContain(`from ${path.join(dir, ".env")}`);
    // The names it read, never their values.
    expect(child.output()).not.toContain(secret);
  });
});

describe("magis serve stops at once when a setting it needs is missing, naming it", () => {
  async function refused(env: NodeJS.ProcessEnv, role: "all" | "web" = "all"): Promise<string> {
    const dir = tempDir();
    const port = await freePort();
    const base = { HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "test", MAGIS_DB: path.join(dir, "magis.db"), MAGIS_WORKDIR: dir };
    const log = pino({ level: "silent" });
    const error = await startServer({ ...base, ...env }, { log, role }).then(
      (started) => ((server = started), null),
      (failure: unknown) => failure as Error,
    );
    expect(error, "the start should have been refused").not.toBeNull();
    // Nothing half-started: no database made, nothing listening.
    expect(fs.existsSync(path.join(dir, "magis.db"))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    return error!.message;
  }

  it("APP_ID without a private key, and a key without APP_ID (they fell back to the setup page without a word)", async () => {
    expect(await refused({ APP_ID: "1046375", WEBHOOK_SECRET: "s" })).toMatch(
      /^APP_ID is set but neither PRIVATE_KEY nor PRIVATE_KEY_PATH is: set PRIVATE_KEY_PATH/,
    );
    expect(await refused({ PRIVATE_KEY: appPrivateKey(), WEBHOOK_SECRET: "s" })).toMatch(/^PRIVATE_KEY is set but APP_ID is not: set APP_ID/);
    expect(await refused({ PRIVATE_KEY_PATH: "/run/secrets/app.pem", WEBHOOK_SECRET: "s" })).toMatch(/^PRIVATE_KEY_PATH is set but APP_ID is not/);
  });

  it("no WEBHOOK_SECRET where webhooks are taken (Probot took 'development' and refused every real delivery)", async () => {
    for (const role of ["all", "web"] as const) {
      const env = { APP_ID: "1", PRIVATE_KEY: appPrivateKey(), ...(role === "web" && { DATABASE_URL: "postgres://magis@127.0.0.1:9/magis" }) };
      expect(await refused(env, role)).toMatch(/^WEBHOOK_SECRET is not set: set it to the webhook secret on the GitHub App's settings page/);
    }
  });

  it("starts without a model, but says so loudly and is not ready until one is set", async () => {
    const dir = tempDir();
    const port = await freePort();
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const env = { HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "test", APP_ID: "1", PRIVATE_KEY: appPrivateKey(), WEBHOOK_SECRET: "s" };
    server = await startServer({ ...env, MAGIS_DB: path.join(dir, "magis.db"), MAGIS_WORKDIR: dir }, { log });
    expect(lines.some((line) => line.includes('"level":50') && line.includes("ALERT: no model is set up") && line.includes("OPENAI_API_KEY"))).toBe(true);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: expect.stringMatching(/^no model is set up, so every job would fail: set OPENAI_API_KEY .*OPENAI_BASE_URL/) });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("a --env-file that is not there", async () => {
    const { main } = await import("../../../src/cli.js");
    const dir = tempDir();
    const errors: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => void errors.push(text), env: {}, cwd: dir };
    expect(await main(["serve", "--env-file", "prod.env"], io)).toBe(2);
    expect(errors.join("")).toContain(`--env-file ${path.join(dir, "prod.env")}: no such file`);
  });
});
