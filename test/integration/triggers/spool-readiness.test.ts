import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { TriggerSpool } from "../../../src/triggers/trigger-spool.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { freePort } from "../../support/free-port.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "../../support/process-group.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";

const MAGIS = path.resolve(import.meta.dirname, "../locate/run-magis.ts");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let serve: ProcessGroup | undefined;
let model: ScriptedModel | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
  await model?.close();
  model = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// Seen: a FIFO in the spool folder blocked the replay's read, and with it the process: /readyz stopped answering. A
// process of its own (the sources through tsx), so that a blocked one cannot stop this test's timers.
it("a FIFO in the spool is set aside; /readyz goes on answering and the delivery after it is recorded", { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-spool-ready-"));
  dirs.push(dir);
  const spoolDir = path.join(dir, "spool");
  fs.mkdirSync(spoolDir, { mode: 0o700 });
  execFileSync("mkfifo", [path.join(spoolDir, "000000000000001-fifo.json")]);
  const payload = {
    action: "labeled",
    installation: { id: 7 },
    repository: { name: "demo", owner: { login: "octo" } },
    issue: { number: 1 },
    sender: { login: "alice", type: "User" },
  };
  new TriggerSpool(spoolDir).add({
    delivery: "d-after",
    event: "issues.labeled",
    installationId: 7,
    owner: "octo",
    repo: "demo",
    number: 1,
    payload,
    receivedAt: 2,
  });
  model = await startScriptedModel();
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    HOST: "127.0.0.1",
    PORT: String(port),
    NODE_ENV: "test",
    APP_ID: "1",
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET: "s3cret",
    // The replayed delivery's decision asks GitHub for a token: here, a port nothing answers on.
    GHE_HOST: `127.0.0.1:${await freePort()}`,
    GHE_PROTOCOL: "http",
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "sk-test-key-not-secret-123456",
    MAGIS_SANDBOX: "none",
    MAGIS_DB: path.join(dir, "magis.db"),
    MAGIS_WORKDIR: dir,
    MAGIS_SPOOL_DIR: spoolDir,
  };
  serve = startProcessGroup(process.execPath, ["--import", TSX, MAGIS, "serve"], { cwd: dir, env });
  const readyz = `http://127.0.0.1:${port}/readyz`;
  await waitFor(serve, () => answersOk(readyz), { withinMs: 60_000, what: "magis serve being ready" });
  // The replay starts 2 s after the start: wait for it to have gone through the folder.
  const replayed = () => fs.readdirSync(spoolDir).filter((name) => name.endsWith(".json")).length === 0;
  await waitFor(serve, replayed, { withinMs: 20_000, what: "the spool to be replayed" });
  expect(await answersOk(readyz)).toBe(true);
  expect(fs.readdirSync(path.join(spoolDir, "rejected")).map((name) => name.replace(/^\d+-/, ""))).toEqual(["000000000000001-fifo.json"]);
  expect(serve.output()).toContain("it is not a regular file (a FIFO)");
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  expect(metrics).toMatch(/^magis_trigger_events_total\{event="set_aside",role="all"\} 1$/m);
  expect(metrics).toMatch(/^magis_trigger_events_total\{event="replayed",role="all"\} 1$/m);
  const db = new Database(path.join(dir, "magis.db"), { readonly: true });
  try {
    expect(db.prepare("SELECT delivery FROM triggers").all()).toEqual([{ delivery: "d-after" }]);
  } finally {
    db.close();
  }
});
