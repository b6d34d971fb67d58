import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { openBackend } from "../../src/backends/open-backend.js";
import { describeQueueContract } from "./queue-contract.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-queue-contract-"));
let count = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeQueueContract("SQLite", () => openBackend({ poolSize: 10 }, { sqliteFile: path.join(dir, `queue-${count++}.db`) }));
