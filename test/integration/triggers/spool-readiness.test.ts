import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { TriggerSpool } from "../../../src/triggers/trigger-spool.js";
import { labeledDelivery } from "../../support/labeled-delivery.js";
import { answersOk, waitFor } from "../../support/process-group.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { startServeFromSources, type SourceServe } from "../../support/serve-from-sources.js";

let serve: SourceServe | undefined;
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
  new TriggerSpool(spoolDir).add(labeledDelivery("d-after", 2));
  model = await startScriptedModel();
  serve = await startServeFromSources(
    {
      HOME: dir,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test-key-not-secret-123456",
      MAGIS_DB: path.join(dir, "magis.db"),
      MAGIS_WORKDIR: dir,
      MAGIS_SPOOL_DIR: spoolDir,
    },
    { cwd: dir },
  );
  const readyz = `${serve.url}/readyz`;
  // The replay starts 2 s after the start: wait for it to have gone through the folder.
  const replayed = () => fs.readdirSync(spoolDir).filter((name) => name.endsWith(".json")).length === 0;
  await waitFor(serve, replayed, { withinMs: 20_000, what: "the spool to be replayed" });
  expect(await answersOk(readyz)).toBe(true);
  expect(fs.readdirSync(path.join(spoolDir, "rejected")).map((name) => name.replace(/^\d+-/, ""))).toEqual(["000000000000001-fifo.json"]);
  expect(serve.output()).toContain("it is not a regular file (a FIFO)");
  const metrics = await (await fetch(`${serve.url}/metrics`)).text();
  expect(metrics).toMatch(/^magis_trigger_events_total\{event="set_aside",role="all"\} 1$/m);
  expect(metrics).toMatch(/^magis_trigger_events_total\{event="replayed",role="all"\} 1$/m);
  const db = new Database(path.join(dir, "magis.db"), { readonly: true });
  try {
    expect(db.prepare("SELECT delivery FROM triggers").all()).toEqual([{ delivery: "d-after" }]);
  } finally {
    db.close();
  }
});
