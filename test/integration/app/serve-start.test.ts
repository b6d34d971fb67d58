import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { freePort } from "../../support/free-port.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";

let server: RunningServer | undefined;
let model: ScriptedModel | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await model?.close();
  model = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** `magis serve` (role all, SQLite in a new folder) on a free port of 127.0.0.1 with the model at `modelUrl`; `logs` gets every line. */
async function serve(modelUrl: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-start-"));
  dirs.push(dir);
  const port = await freePort();
  const logs: string[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  const env = {
    // bubblewrap is looked up on the PATH.
    PATH: process.env.PATH,
    HOST: "127.0.0.1",
    PORT: String(port),
    NODE_ENV: "test",
    APP_ID: "31337",
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: "s3cret",
    MAGIS_DB: path.join(dir, "magis.db"),
    MAGIS_WORKDIR: dir,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: "sk-start-line-not-secret-0123456789",
  };
  server = await startServer(env, { log });
  const messages = () => logs.map((line) => JSON.parse(line) as { level: number; msg: string });
  return { base: `http://127.0.0.1:${port}`, dir, messages };
}

describe("magis serve says what it serves", () => {
  it("logs one start line with the role, the App ID, the webhook path, the SQLite file, the sandbox and the model endpoint, and no secret", async () => {
    model = await startScriptedModel();
    const { dir, messages } = await serve(model.url);
    const lines = messages().filter((m) => m.msg.startsWith("magis serve: "));
    expect(lines).toHaveLength(1);
    const parts = lines[0]!.msg.replace(/^magis serve: /, "").split("; ");
    expect(parts.slice(0, 4)).toEqual(["role all", "App ID 31337", "webhooks at POST /api/github/webhooks", `store SQLite ${path.join(dir, "magis.db")}`]);
    // bubblewrap works on this machine (.ci/run installs it); its description is the sandbox's own.
    expect(parts.slice(4, -1).join("; ")).toMatch(/^sandbox: repository commands run in a bubblewrap sandbox \(no network/);
    expect(parts.at(-1)).toBe(`model endpoint ${model.url}`);
    expect(JSON.stringify(messages())).not.toContain("sk-start-line-not-secret");
  });

  it("tells the model endpoint without the user and password its URL carries", async () => {
    model = await startScriptedModel();
    const { messages } = await serve(model.url.replace("http://", "http://user:pa55word@"));
    const line = messages().find((m) => m.msg.startsWith("magis serve: "))!.msg;
    expect(line).toContain(`model endpoint ${model.url}`);
    expect(line).not.toContain("pa55word");
  });

  it("answers GET / with what it is and links to its endpoints: JSON for a script, a page for a browser", async () => {
    model = await startScriptedModel();
    const { base } = await serve(model.url);
    const json = await fetch(`${base}/`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(await json.json()).toEqual({
      name: "MAGIS",
      what: "a GitHub App that resolves issues with a team of LLM agents",
      role: "all",
      webhooks: "POST /api/github/webhooks: GitHub's webhooks, signed with WEBHOOK_SECRET",
      endpoints: { "/healthz": expect.any(String), "/readyz": expect.any(String), "/metrics": expect.any(String) },
      docs: "https://github.com/magis-bot/magis-bot/blob/main/docs/app.md",
    });
    const page = await fetch(`${base}/`, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    for (const endpoint of ["/healthz", "/readyz", "/metrics"]) expect(html).toContain(`<a href="${endpoint}">${endpoint}</a>`);
    expect(html).toContain("POST /api/github/webhooks");
    // Every link it gives answers.
    for (const endpoint of ["/healthz", "/readyz", "/metrics"]) expect((await fetch(`${base}${endpoint}`)).status).toBe(200);
  });

  it("is ready once the model endpoint has answered GET /models, and says so", async () => {
    model = await startScriptedModel();
    const { base } = await serve(model.url);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toMatch(new RegExp(`^ready\\nrepository commands run in a bubblewrap sandbox .*\\nthe model endpoint ${model.url} answers\\n$`));
    // Asked once: with the endpoint gone, later probes still answer ready (a job that needs it says so on its issue).
    await model.close();
    model = undefined;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it("is not ready while the model endpoint cannot be reached, and says which address and what to check", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    const { base, messages } = await serve(closed);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    const { error } = (await ready.json()) as { error: string };
    expect(error).toMatch(
      new RegExp(
        `^the model endpoint: could not reach ${closed.replace(/[.:/]/g, "\\$&")} \\(1 try\\).*Check OPENAI_BASE_URL and that the server is running\\.$`,
      ),
    );
    expect(messages().some((m) => m.level === 50 && m.msg.startsWith(`ALERT: the model endpoint: could not reach ${closed}`))).toBe(true);
    // Health is another matter: the process runs.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
