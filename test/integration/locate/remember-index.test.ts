import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { indexRepository } from "../../../src/pipeline/locate/index-repository.js";
import { parseTerms, TermMemo, termsKey, type TermMemory } from "../../../src/pipeline/locate/remember-terms.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { SqliteIndexCache } from "../../../src/backends/sqlite/sqlite-index-cache.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { cartIssue, makeFixtureRepo } from "./fixture-repo.js";

const run = promisify(execFile);
const list = { exclude: [], maxFileBytes: 100_000 };
const query = buildQuery({ ...cartIssue, body: `${cartIssue.body}\nTypeError: Cart.total_price() takes 1 positional argument` });

let repo: string;
let work: string;
let store: SqliteStore;
// The store's index cache with the memo the wiring keeps in front of it for the process.
let terms: TermMemory;

beforeEach(async () => {
  repo = makeFixtureRepo();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-index-cache-"));
  store = openSqliteStore(path.join(work, "magis.db"));
  await store.migrate();
  terms = { cache: store.memory.index, memo: new TermMemo() };
});

/** A second connection to the same file, as a later job's process would open; closed with the test's. */
const others: SqliteStore[] = [];
async function openedAgain(): Promise<TermMemory> {
  const other = openSqliteStore(path.join(work, "magis.db"));
  others.push(other);
  return { cache: other.memory.index, memo: new TermMemo() };
}

afterEach(async () => {
  for (const other of others.splice(0)) await other.close();
  await store.close();
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the index cache in the memory's SQLite store", () => {
  it("tokenizes only blobs no earlier job saw, and ranks exactly as without the cache", async () => {
    const first = await indexRepository(repo, list, { terms });
    expect(first.stats).toMatchObject({ files: 5, tokenized: 5 });
    const expected = await first.rank(query, 5);
    expect(expected[0]!.path).toBe("shop/cart.py");
    expect(first.stats.parsed).toBeGreaterThan(0);

    // A later job, in a fresh connection to the same file: nothing to tokenize, nothing to parse.
    const again = await indexRepository(repo, list, { terms: await openedAgain() });
    expect(again.stats.tokenized).toBe(0);
    expect(await again.rank(query, 5)).toEqual(expected);
    expect(again.stats.parsed).toBe(0);

    // One file changed: only its new blob is tokenized; the ranking is the one an uncached index gives.
    fs.appendFileSync(path.join(repo, "shop/payment.py"), "\ndef refund(card, amount):\n    return card.refund(amount)\n");
    const changed = await indexRepository(repo, list, { terms });
    expect(changed.stats.tokenized).toBe(1);
    expect(await changed.rank(query, 5)).toEqual(await (await indexRepository(repo, list)).rank(query, 5));
  });

  it("keeps the terms of a file's defined names with its terms, so a later job reading them back tokenizes none of them", async () => {
    await indexRepository(repo, list, { terms });
    const bytes = fs.readFileSync(path.join(repo, "shop/cart.py"));
    const key = termsKey("shop/cart.py", gitBlobId(bytes));
    const stored = (await store.memory.index.readTerms([key])).get(key);
    expect(JSON.parse(stored!)).toMatchObject({
      defined: ["Cart", "add_item", "total_price"],
      definedTerms: ["cart", "add_item", "add", "item", "total_price", "total", "price"],
    });
    expect(parseTerms(stored!).definedTerms).toEqual(["cart", "add_item", "add", "item", "total_price", "total", "price"]);
  });

  it("keys entries by blob id, so the same file in another checkout (any path to it) is not tokenized again", async () => {
    await indexRepository(repo, list, { terms });
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "magis-index-copy-"));
    try {
      fs.cpSync(repo, copy, { recursive: true });
      fs.writeFileSync(path.join(copy, "shop/shipping.py"), "def shipping_cost(weight):\n    return 7\n");
      expect((await indexRepository(copy, list, { terms })).stats.tokenized).toBe(1);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("stays under its bound by evicting the entries used longest ago", async () => {
    let clock = 1_000;
    const cache = new SqliteIndexCache(store.db, 2_000, () => clock);
    const entry = (n: number) => JSON.stringify({ terms: [`term${n}`], counts: [1], defined: [], pad: "x".repeat(480) });
    await cache.writeTerms(
      [
        ["a", entry(1)],
        ["b", entry(2)],
        ["c", entry(3)],
      ],
      [],
    );
    clock = 2_000;
    await cache.writeTerms([], ["a"]); // a job used `a` again: `b` is now the oldest
    clock = 3_000;
    await cache.writeTerms([["d", entry(4)]], ["a", "c"]);
    expect([...(await cache.readTerms(["a", "b", "c", "d"])).keys()]).toEqual(["a", "c", "d"]);
    expect(await cache.bytes()).toBeLessThanOrEqual(2_000);
    const table = new Database(path.join(work, "magis.db"), { readonly: true });
    expect(table.prepare("SELECT key FROM index_cache ORDER BY key").all()).toEqual([{ key: "a" }, { key: "c" }, { key: "d" }]);
    table.close();
  });

  it("stores the definitions a query parsed before the terms were stored once they are, so the next job parses none", async () => {
    const first = await indexRepository(repo, list, { terms, storeLater: true });
    await first.rank(query, 5);
    expect(first.stats.parsed).toBeGreaterThan(0);
    await first.remember();
    const next = await indexRepository(repo, list, { terms: await openedAgain() });
    expect(next.stats.tokenized).toBe(0);
    await next.rank(query, 5);
    expect(next.stats.parsed).toBe(0);
  });

  it("keeps the definitions a job stored when another job on the same repository, indexed meanwhile, stores the same terms", async () => {
    const first = await indexRepository(repo, list, { terms, storeLater: true });
    await first.rank(query, 5);
    expect(first.stats.parsed).toBeGreaterThan(0);
    // A second issue's job indexes before the first stored its terms, and stores them after it.
    const second = await indexRepository(repo, list, { terms, storeLater: true });
    await first.remember();
    await second.remember();
    const next = await indexRepository(repo, list, { terms: await openedAgain() });
    await next.rank(query, 5);
    expect(next.stats.parsed).toBe(0);
  });

  it("remembers definitions with the terms and drops them with their entry", async () => {
    const cache = store.memory.index;
    await cache.writeDefinitions("missing", "[]");
    expect(await cache.readDefinitions("missing")).toBeNull();
    await cache.writeTerms([["k", '{"terms":[],"counts":[],"defined":[]}']], []);
    expect(await cache.readDefinitions("k")).toBeNull();
    await cache.writeDefinitions("k", '[{"name":"Cart"}]');
    expect(await cache.readDefinitions("k")).toBe('[{"name":"Cart"}]');
    await cache.clear();
    expect((await cache.readTerms(["k"])).size).toBe(0);
  });
});

// CLI processes compiling the sources with tsx first: on a loaded two-core machine that alone takes most of 30 s.
describe("magis locate --bm25-only", { timeout: 120_000 }, () => {
  it("keeps the index cache in MAGIS_DB, keyed by blob id, and a second run reads it back", async () => {
    fs.writeFileSync(path.join(work, "issue.md"), "# Cart total_price ignores discount codes\n\nThe `Cart` ignores `apply_discount`.\n");
    const locate = () =>
      run(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(import.meta.dirname, "run-magis.ts"),
          "locate",
          "--repo",
          repo,
          "--issue-file",
          path.join(work, "issue.md"),
          "--bm25-only",
          "--json",
        ],
        {
          env: { ...process.env, MAGIS_DB: path.join(work, "cli.db") },
        },
      );
    const first = JSON.parse((await locate()).stdout) as { files: Array<{ path: string }> };
    expect(first.files[0]!.path).toBe("shop/cart.py");
    const rows = () => {
      const stored = new Database(path.join(work, "cli.db"), { readonly: true });
      const all = stored.prepare("SELECT key, used_at FROM index_cache ORDER BY key").all() as Array<{ key: string; used_at: number }>;
      stored.close();
      return all;
    };
    const keys = rows();
    // Each file's key is the cache format, its git blob id (as `git hash-object` gives it) and extension.
    const cartBlob = (await run("git", ["hash-object", path.join(repo, "shop/cart.py")])).stdout.trim();
    expect(keys.map((k) => k.key)).toContainEqual(expect.stringMatching(new RegExp(`^\\d+:${cartBlob}\\.py$`)));
    expect(keys).toHaveLength(5);
    expect(JSON.parse((await locate()).stdout)).toEqual(first);
    // The same five entries, each marked used by the second run (none added: nothing was tokenized again).
    const after = rows();
    expect(after.map((r) => r.key)).toEqual(keys.map((k) => k.key));
    after.forEach((row, i) => expect(row.used_at).toBeGreaterThan(keys[i]!.used_at));
  });
});
