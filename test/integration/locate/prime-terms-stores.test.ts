import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { indexRepository } from "../../../src/pipeline/locate/index-repository.js";
import { primeTerms } from "../../../src/pipeline/locate/prime-terms.js";
import { TermMemo, termsKey } from "../../../src/pipeline/locate/remember-terms.js";
import { openPostgresStore, type PostgresStore } from "../../../src/backends/postgres/postgres-store.js";
import { openSqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import type { ClonedFile } from "../../../src/git/write-worktree.js";
import { holdSqliteLock } from "../../support/hold-sqlite-lock.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";
import { cartIssue, makeFixtureRepo } from "./fixture-repo.js";

// primeTerms in front of the stores an installation runs on: PostgreSQL shared by processes, and SQLite held locked.
const list = { exclude: [], maxFileBytes: 100_000 };
let repo: string;
let work: string;
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await postgres.stop();
});
beforeEach(() => {
  repo = makeFixtureRepo();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-prime-stores-"));
});
afterEach(() => {
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

function clonedFiles(): ClonedFile[] {
  return fs
    .readdirSync(repo, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const rel = path.relative(repo, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
      const bytes = fs.readFileSync(path.join(repo, rel));
      return { path: rel, oid: gitBlobId(bytes), bytes };
    });
}

describe("primeTerms with a PostgreSQL store", () => {
  it("primes, the job's index stores what was primed, and another process's store object tokenizes nothing", async () => {
    const url = await postgres.newDatabase();
    const stores: PostgresStore[] = [];
    try {
      const first = await openPostgresStore(url);
      stores.push(first);
      await first.migrate();
      const terms = { cache: first.memory.index, memo: new TermMemo() };
      await primeTerms(terms, list)(clonedFiles());
      const index = await indexRepository(repo, list, { terms });
      expect(index.stats).toMatchObject({ files: 5, tokenized: 5 });
      const other = await openPostgresStore(url);
      stores.push(other);
      const again = await indexRepository(repo, list, { terms: { cache: other.memory.index, memo: new TermMemo() } });
      expect(again.stats.tokenized).toBe(0);
      const query = buildQuery(cartIssue);
      expect(await again.rank(query, 5)).toEqual(await (await indexRepository(repo, list)).rank(query, 5));
    } finally {
      for (const store of stores) await store.close();
    }
  });
});

describe("the index when another session holds PostgreSQL's index cache locked (a migration, VACUUM FULL)", () => {
  it("reads nothing and writes nothing within the database's lock_timeout, tokenizes every file, and ranks as without a cache", async () => {
    const url = await postgres.newDatabase();
    const setup = await openPostgresStore(url);
    await setup.migrate();
    await setup.close();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    let store: PostgresStore | undefined;
    try {
      await holder.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET lock_timeout = '100ms'`);
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE index_cache IN ACCESS EXCLUSIVE MODE");
      store = await openPostgresStore(url);
      const index = await indexRepository(repo, list, { terms: { cache: store.memory.index, memo: new TermMemo() } });
      expect(index.stats).toMatchObject({ files: 5, tokenized: 5 });
      const query = buildQuery(cartIssue);
      const ranked = await index.rank(query, 5);
      expect(ranked[0]?.path).toBe("shop/cart.py");
      expect(ranked).toEqual(await (await indexRepository(repo, list)).rank(query, 5));
      await holder.query("ROLLBACK");
      expect(await store.memory.index.bytes()).toBe(0);
    } finally {
      await store?.close();
      await holder.end();
    }
  });
});

describe("primed terms when another process holds the SQLite store locked as the index writes", () => {
  it("keeps them unstored in the memo, and the next job in the process stores them", async () => {
    const file = path.join(work, "magis.db");
    const store = openSqliteStore(file);
    const other = openSqliteStore(file);
    try {
      await store.migrate();
      store.db.exec("PRAGMA busy_timeout = 20");
      const terms = { cache: store.memory.index, memo: new TermMemo() };
      await primeTerms(terms, list)(clonedFiles());
      const lock = holdSqliteLock(file);
      try {
        expect((await indexRepository(repo, list, { terms })).stats.tokenized).toBe(5);
      } finally {
        lock.release();
      }
      const cart = clonedFiles().find((f) => f.path === "shop/cart.py")!;
      expect(terms.memo.get(termsKey(cart.path, cart.oid))?.stored).toBe(false);
      expect(await other.memory.index.readTerms([termsKey(cart.path, cart.oid)])).toEqual(new Map());
      await indexRepository(repo, list, { terms });
      expect((await indexRepository(repo, list, { terms: { cache: other.memory.index, memo: new TermMemo() } })).stats.tokenized).toBe(0);
    } finally {
      await other.close();
      await store.close();
    }
  });
});
