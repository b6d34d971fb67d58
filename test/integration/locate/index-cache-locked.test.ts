import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rememberedTerms } from "../../../src/pipeline/locate/remember-terms.js";
import { sliceWork } from "../../../src/pipeline/locate/slice-work.js";
import { openDatabase, type Db } from "../../../src/store/database.js";
import { EvolutionMemory } from "../../../src/store/memory.js";
import { holdSqliteLock } from "../../support/hold-sqlite-lock.js";

let dir: string;
let db: Db;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-cache-lock-"));
  db = openDatabase(path.join(dir, "magis.db"));
  db.pragma("busy_timeout = 20");
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the index cache while another process holds the store locked", () => {
  it("indexes anyway, remembering nothing: a cache saves work, it never fails a job", async () => {
    const memory = new EvolutionMemory(db);
    const files = [{ path: "a.py", text: "def alpha():\n    return 1\n" }, { path: "b.py", text: "class Beta:\n    pass\n" }];
    const lock = holdSqliteLock(path.join(dir, "magis.db"));
    try {
      const remembered = await rememberedTerms(files, memory.index, sliceWork());
      expect(remembered.tokenized).toBe(2);
      expect(remembered.documents).toHaveLength(2);
    } finally {
      lock.release();
    }
    // Once the lock is gone, the next job remembers them.
    await rememberedTerms(files, memory.index, sliceWork());
    expect((await rememberedTerms(files, memory.index, sliceWork())).tokenized).toBe(0);
  });
});
