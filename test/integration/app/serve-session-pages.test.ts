import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { freePort } from "../../support/free-port.js";

let server: RunningServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** `magis serve --role all` with the app's credentials on a free port, and `env` over them; its address and log lines. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ url: string; logs: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-serve-pages-"));
  dirs.push(dir);
  const port = await freePort();
  const logs: string[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const settings = {
    HOST: "127.0.0.1",
    PORT: String(port),
    NODE_ENV: "test",
    APP_ID: "1",
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: "s3cret",
    MAGIS_DB: path.join(dir, "magis.db"),
    MAGIS_WORKDIR: dir,
    MAGIS_SANDBOX: "none",
    // A port nothing answers on: nothing here reaches GitHub.
    GHE_HOST: `127.0.0.1:${await freePort()}`,
    GHE_PROTOCOL: "http",
  };
  server = await startServer({ ...settings, ...env }, { log, envFile: path.join(dir, ".env") });
  return { url: `http://127.0.0.1:${port}`, logs };
}

describe("magis serve and the session pages", () => {
  it("serves no session page without the App's OAuth client, and says what turns it on", async () => {
    const { url, logs } = await serve({ MAGIS_PUBLIC_URL: "https://magis.example.com" });
    const page = await fetch(`${url}/jobs/1`, { redirect: "manual" });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-security-policy")).toBeNull();
    expect((await fetch(`${url}/auth/github/login`, { redirect: "manual" })).status).toBe(404);
    expect(logs.join("\n")).toContain("the session pages are off: set GITHUB_CLIENT_ID");
  });

  it("mounts them beside the webhooks once GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET and MAGIS_PUBLIC_URL are set", async () => {
    const { url, logs } = await serve({
      GITHUB_CLIENT_ID: "Iv1.mounted",
      GITHUB_CLIENT_SECRET: "mounted-client-secret-0123456789abcdef",
      MAGIS_PUBLIC_URL: "https://magis.example.com",
    });
    const page = await fetch(`${url}/jobs/1`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("https://magis.example.com/auth/github/login?return_to=%2Fjobs%2F1");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const signIn = await fetch(`${url}/auth/github/login?return_to=/jobs/1`, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toMatch(/\/login\/oauth\/authorize\?client_id=Iv1\.mounted&/);
    expect((await fetch(`${url}/jobs/live.js`)).status).toBe(200);
    // Webhooks are still the webhook server's: unsigned, refused before Probot.
    expect((await fetch(`${url}/api/github/webhooks`, { method: "POST", body: "{}" })).status).toBe(400);
    expect(logs.join("\n")).not.toContain("the session pages are off");
  });
});
