import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../src/backends/sqlite/sqlite-backend.js";
import { forEachSqliteEngine } from "../support/each-sqlite-engine.js";
import { describeQueueContract } from "./queue-contract.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-queue-contract-"));
let count = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// The backend openBackend makes for a SQLite file, over each engine that loads here.
forEachSqliteEngine((engine) =>
  describeQueueContract(`SQLite (${engine.name})`, async () => new SqliteBackend(openDatabase(path.join(dir, `queue-${count++}.db`), engine))),
);
