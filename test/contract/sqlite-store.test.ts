import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import { describeStoreContract } from "./store-contract.js";

// Each test gets a fresh file: creating one takes a millisecond.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-contract-"));
const opened: SqliteStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describeStoreContract("SQLite", async (options) => {
  const store = openSqliteStore(path.join(dir, `store-${opened.length}.db`), options);
  opened.push(store);
  await store.migrate();
  return store;
});
