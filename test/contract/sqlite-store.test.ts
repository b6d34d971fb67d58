import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { forEachSqliteEngine } from "../support/each-sqlite-engine.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { describeStoreContract } from "./store-contract.js";

// Each test gets a fresh file: creating one takes a millisecond.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-contract-"));
const opened: SqliteStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The same contract over each engine that loads here: the App's better-sqlite3 and the Action's node:sqlite.
let files = 0;
let file = "";
forEachSqliteEngine((engine) =>
  describeStoreContract(
    `SQLite (${engine.name})`,
    async (options) => {
      file = path.join(dir, `store-${++files}.db`);
      const store = new SqliteStore(openDatabase(file, engine), options);
      opened.push(store);
      await store.migrate();
      return store;
    },
    async (options) => {
      const store = new SqliteStore(openDatabase(file, engine), options);
      opened.push(store);
      return store;
    },
  ),
);

describe("the SQLite store, across processes", () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const appender = path.join(import.meta.dirname, "append-sessions.ts");

  it("numbers the entries two processes append to one job's session at once without a gap or a duplicate", { timeout: 180_000 }, async () => {
    const shared = path.join(dir, "two-processes.db");
    const store = new SqliteStore(openDatabase(shared));
    opened.push(store);
    await store.migrate();
    const run = (who: string) =>
      runInProcessGroup(process.execPath, ["--import", tsx, appender, shared, who, "150"], { cwd: dir, env: { PATH: process.env.PATH }, timeoutMs: 150_000 });
    expect(await Promise.all([run("a"), run("b")])).toEqual([
      { code: 0, out: "" },
      { code: 0, out: "" },
    ]);
    const rows = await store.sessions.read(1);
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    const texts = rows.map((row) => (JSON.parse(row.data) as { text: string }).text);
    // Each append's pair stays together, and both processes' appends interleaved (they ran at once).
    for (let i = 0; i < texts.length; i += 2) expect(texts[i + 1]).toBe(texts[i]!.replace(/\.1$/, ".2"));
    const switches = texts.filter((text, i) => i > 0 && text[0] !== texts[i - 1]![0]).length;
    expect(switches).toBeGreaterThan(0);
    expect(new Set(texts).size).toBe(600);
  });
});
