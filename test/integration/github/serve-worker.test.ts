import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../../src/cli/serve.js";
import type { RunningServer } from "../../../src/server/start-webhook-server.js";
import { checkoutPrefix, THIS_PROCESS } from "../../../src/workspace/checkout-name.js";
import { freePort } from "../../support/free-port.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";

let postgres: TestPostgres;
let server: RunningServer | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("magis serve --role worker", () => {
  it("logs through Probot's own logger from its start: the checkout an earlier run left is removed, and the worker becomes ready", async () => {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-worker-"));
    dirs.push(workDir);
    // Left by an earlier run of this very pid: removed at start-up, which the worker logs before Probot's logger would exist.
    const leftover = path.join(workDir, `${checkoutPrefix({ ...THIS_PROCESS, run: "0badc0de" })}Ab12Cd`);
    fs.mkdirSync(path.join(leftover, ".git"), { recursive: true });
    const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    const port = await freePort();
    // No `log` option: the worker gets Probot's logger, which Probot builds asynchronously.
    server = await startServer(
      { HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "test", LOG_LEVEL: "silent", APP_ID: "1", PRIVATE_KEY: privateKey, DATABASE_URL: await postgres.newDatabase(), MAGIS_WORKDIR: workDir },
      { role: "worker" },
    );
    expect(fs.existsSync(leftover)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  });
});
