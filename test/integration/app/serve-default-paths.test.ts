import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../../src/backends/sqlite/sqlite-backend.js";
import { TriggerSpool } from "../../../src/triggers/trigger-spool.js";
import { labeledDelivery } from "../../support/labeled-delivery.js";
import { waitFor } from "../../support/process-group.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { startServeFromSources, type SourceServe } from "../../support/serve-from-sources.js";

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  await model?.close();
});

let serve: SourceServe | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// The uid of `nobody`: another local user.
const OTHER_UID = 65534;

/** A home, a working folder and a temp folder (TMPDIR: the system's temp folder as the process sees it) of a test's own. */
function folders(): { home: string; work: string; tmp: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-default-paths-"));
  dirs.push(root);
  const made = { home: path.join(root, "home"), work: path.join(root, "work"), tmp: path.join(root, "tmp") };
  for (const dir of Object.values(made)) fs.mkdirSync(dir);
  return made;
}

/** `magis serve` with neither DATABASE_URL, MAGIS_DB, MAGIS_WORKDIR nor MAGIS_SPOOL_DIR. */
function serveWithDefaults({ home, work, tmp }: ReturnType<typeof folders>): Promise<SourceServe> {
  return startServeFromSources({ HOME: home, TMPDIR: tmp, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-test-key-not-secret-123456" }, { cwd: work });
}

const recorded = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT delivery FROM triggers ORDER BY delivery").all();
  } finally {
    db.close();
  }
};

describe("magis serve without a store or spool named", { timeout: 120_000 }, () => {
  // Seen: the CLI kept ~/.cache/magis/magis.db, serve a .magis/magis.db in whatever folder it ran from. And the spool
  // was $TMPDIR/magis-spool, which another user made first: a trigger planted there ran as job #1.
  it("keeps the store and the spool in the bot's state folder, the CLI's: nothing in the working folder, nothing taken from the temp folder", async () => {
    const where = folders();
    const state = path.join(where.home, ".cache", "magis");
    // Another user's spool where the default was, with a trigger of theirs in it.
    const planted = path.join(where.tmp, "magis-spool");
    new TriggerSpool(planted).add(labeledDelivery("d-planted", 1));
    fs.chmodSync(planted, 0o777);
    for (const name of ["", ...fs.readdirSync(planted)]) fs.chownSync(path.join(planted, name), OTHER_UID, OTHER_UID);
    // One the bot spooled itself while its store was down, in its own state folder.
    new TriggerSpool(path.join(state, "spool")).add(labeledDelivery("d-own", 2));
    serve = await serveWithDefaults(where);
    expect(serve.output()).toContain(`store SQLite ${path.join(state, "magis.db")}`);
    await waitFor(serve, () => new TriggerSpool(path.join(state, "spool")).depth === 0, { withinMs: 20_000, what: "the bot's own spool to be replayed" });
    expect(recorded(path.join(state, "magis.db"))).toEqual([{ delivery: "d-own" }]);
    expect(fs.readdirSync(planted).filter((name) => name.endsWith(".json"))).toHaveLength(1);
    expect(fs.readdirSync(where.work)).toEqual([]);
  });

  it("goes on with the .magis/magis.db an earlier version left in the working folder, and says so and what to set", async () => {
    const where = folders();
    const former = path.join(where.work, ".magis", "magis.db");
    const backend = new SqliteBackend(openDatabase(former));
    await backend.migrate({ info: () => {}, warn: () => {}, error: () => {} });
    await backend.store.triggers.record(labeledDelivery("d-earlier", 1));
    await backend.close();
    serve = await serveWithDefaults(where);
    expect(serve.output()).toContain(`store SQLite ${former}`);
    expect(serve.output()).toContain(
      `MAGIS_DB is unset and the working folder holds ${former}, where earlier versions of magis serve kept the store: it is used. Set MAGIS_DB=${former} to keep it there, or move it to ${path.join(where.home, ".cache", "magis", "magis.db")} (the default)`,
    );
    expect(fs.existsSync(path.join(where.home, ".cache", "magis", "magis.db"))).toBe(false);
    expect(recorded(former)).toEqual([{ delivery: "d-earlier" }]);
  });
});
