import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { withShallowClone } from "../../../src/git/clone-repository.js";
import { locateFiles } from "../../../src/pipeline/locate/locate-files.js";
import { openJobIndex } from "../../../src/pipeline/locate/open-job-index.js";
import { TermMemo, termsKey, type TermMemory } from "../../../src/pipeline/locate/remember-terms.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { createBareRepository, startGitServer, type GitServer } from "../../support/git-server.js";
import { cartIssue, makeFixtureRepo } from "./fixture-repo.js";

// The per-job index as a job uses it: handed to a real clone as its sink, then to the Custodian in its context.
let root: string;
let server: GitServer;
let store: SqliteStore;
const files: Record<string, string> = {};

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-job-index-"));
  const fixture = makeFixtureRepo();
  for (const rel of ["README.md", "shop/cart.py", "shop/discount.py", "shop/payment.py", "shop/shipping.py"]) {
    files[rel] = fs.readFileSync(path.join(fixture, rel), "utf8");
  }
  fs.rmSync(fixture, { recursive: true, force: true });
  createBareRepository(root, "acme/shop", files);
  server = await startGitServer(root);
  store = openSqliteStore(path.join(root, "magis.db"));
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const config = parseConfig({});
const list = { exclude: config.exclude, maxFileBytes: config.max_file_bytes };
const noModel = { ask: () => Promise.reject(new Error("ranking only")) };

/** One job: a clone into the job's index, and the Custodian ranking from it; returns the index's files left and what was ranked. */
async function job(terms: TermMemory): Promise<{ ranked: string[]; left: unknown }> {
  const index = openJobIndex({ terms, list });
  return withShallowClone(
    { url: `${server.url}/acme/shop.git`, token: "unused" },
    "main",
    async (checkout) => {
      // Learned while the clone wrote the files: every candidate's terms are in the memo before the Custodian runs.
      for (const [rel, text] of Object.entries(files)) expect(terms.memo.has(termsKey(rel, checkout.blobId(Buffer.from(text))))).toBe(true);
      const ctx: StageContext = { root: checkout.dir, repoId: "acme/shop", config, llm: noModel, now: Date.now, onProgress: () => {}, index };
      const ranked = await locateFiles(ctx, cartIssue, store.memory, { bm25Only: true, top: 5 });
      return { ranked: ranked.map((file) => file.path), left: index.takeWritten() };
    },
    { sink: index },
  );
}

describe("a job's index, between its clone and its Custodian", () => {
  it("learns the files' terms while the clone writes them, hands the files over once, and a later job in the process asks the store nothing", async () => {
    const terms = { cache: store.memory.index, memo: new TermMemo() };
    const first = await job(terms);
    expect(first.ranked[0]).toBe("shop/cart.py");
    // The Custodian took what the clone wrote: nothing is left to take.
    expect(first.left).toBeUndefined();
    expect(await store.memory.index.bytes()).toBeGreaterThan(0);
    const reads = vi.spyOn(store.memory.index, "readTerms");
    const second = await job(terms);
    expect(second.ranked).toEqual(first.ranked);
    expect(reads).not.toHaveBeenCalled();
  });
});
