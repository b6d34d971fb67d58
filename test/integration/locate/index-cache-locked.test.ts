import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rememberedTerms, TermMemo } from "../../../src/pipeline/locate/remember-terms.js";
import { sliceWork } from "../../../src/lib/slice-work.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { holdSqliteLock } from "../../support/hold-sqlite-lock.js";

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-cache-lock-"));
  store = openSqliteStore(path.join(dir, "magis.db"));
  await store.migrate();
  store.db.exec("PRAGMA busy_timeout = 20");
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the index cache while another process holds the store locked", () => {
  it("indexes anyway, remembering nothing: a cache saves work, it never fails a job", async () => {
    const memory = store.memory;
    const terms = { cache: memory.index, memo: new TermMemo() };
    const files = [
      { path: "a.py", text: "def alpha():\n    return 1\n" },
      { path: "b.py", text: "class Beta:\n    pass\n" },
    ];
    const lock = holdSqliteLock(path.join(dir, "magis.db"));
    try {
      const remembered = await rememberedTerms(files, terms, sliceWork());
      expect(remembered.tokenized).toBe(2);
      expect(remembered.documents).toHaveLength(2);
      // Storing them finds the store locked, and gives up quietly.
      await remembered.remember();
    } finally {
      lock.release();
    }
    // Once the lock is gone, the next job remembers them.
    await (await rememberedTerms(files, terms, sliceWork())).remember();
    expect((await rememberedTerms(files, terms, sliceWork())).tokenized).toBe(0);
  });
});
