import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { forEachSqliteEngine } from "../support/each-sqlite-engine.js";
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
