import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Server } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../../src/cli/serve.js";
import { sign } from "../../e2e/start-app.js";

let server: Server | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("magis serve", () => {
  it("without APP_ID and PRIVATE_KEY serves Probot's setup page with the app.yml manifest", async () => {
    // The setup app reads these from process.env itself; without them it would ask smee.io for a channel.
    process.env.NO_SMEE_SETUP = "true";
    const port = await freePort();
    server = await startServer({ HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "silent", NODE_ENV: "test" });
    const response = await fetch(`http://127.0.0.1:${port}/probot`);
    expect(response.status).toBe(200);
    const html = (await response.text()).replace(/&quot;/g, '"');
    expect(html).toContain('"name":"MAGIS"');
    for (const event of ["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"]) expect(html).toContain(`"${event}"`);
    expect(html).toContain('"contents":"write"');
    expect(html).toContain('"metadata":"read"');
  });

  it("with credentials serves signed webhooks and refuses unsigned ones", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-serve-"));
    dirs.push(dir);
    const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    const port = await freePort();
    server = await startServer({
      HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "silent", NODE_ENV: "test",
      APP_ID: "1", PRIVATE_KEY: privateKey, WEBHOOK_SECRET: "s3cret", MAGIS_DB: path.join(dir, "magis.db"),
    });
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const post = (signature: string) =>
      fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "p1", "x-hub-signature-256": signature },
        body,
      });
    expect((await post(sign("s3cret", body))).status).toBe(200);
    expect((await post(sign("wrong", body))).status).toBe(400);
    expect(fs.existsSync(path.join(dir, "magis.db"))).toBe(true);
  });
});
