import { inspect } from "node:util";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { NewJob } from "../../src/store/jobs.js";
import { MIGRATIONS, migratePostgres, type Migration } from "../../src/backends/postgres/migrations.js";
import { openPostgresStore, type PostgresStore } from "../../src/backends/postgres/postgres-store.js";
import { freePort } from "../support/free-port.js";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { describeStoreContract } from "./store-contract.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

// One database for the contract, emptied for each test: creating a database takes 0.1 to 0.5 s here, emptying it 10 ms.
let contractDatabase: string | undefined;
describeStoreContract(
  "PostgreSQL",
  async (options) => {
    contractDatabase ??= await server.newDatabase();
    const store = await openPostgresStore(contractDatabase, options);
    await store.migrate();
    const { rows } = await store.pool.query<{ name: string }>(
      "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'magis_schema_migrations'",
    );
    await store.pool.query(`TRUNCATE ${rows.map((row) => row.name).join(", ")} RESTART IDENTITY`);
    return store;
  },
  (options) => openPostgresStore(contractDatabase!, options),
);

describe("the PostgreSQL store, across processes", () => {
  const opened: PostgresStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  /** `count` stores on one database, each with its own pool, as separate processes would have. */
  async function openStores(url: string, count: number): Promise<PostgresStore[]> {
    const stores = await Promise.all(Array.from({ length: count }, () => openPostgresStore(url, { poolSize: 4 })));
    opened.push(...stores);
    return stores;
  }
  const job = (delivery: string): NewJob => ({
    delivery,
    key: "octo/widgets#1",
    kind: "resolve-issue",
    installationId: 1,
    owner: "octo",
    repo: "widgets",
    number: 1,
    payload: {},
  });

  it("applies each migration once when five processes start at once; the others wait, then find nothing to do", async () => {
    const stores = await openStores(await server.newDatabase(), 5);
    const applied = await Promise.all(stores.map((store) => store.migrate()));
    expect(applied.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((migration) => migration.version));
    const { rows } = await stores[0]!.pool.query<{ version: number }>("SELECT version FROM magis_schema_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(await stores[1]!.migrate()).toEqual([]);
  });

  it("applies a migration added later on the next start, and rolls a failing one back whole", async () => {
    const [store] = await openStores(await server.newDatabase(), 1);
    const last = Math.max(...MIGRATIONS.map((migration) => migration.version));
    const added: Migration = { version: last + 1, name: "labels", sql: "CREATE TABLE labels (name TEXT PRIMARY KEY)" };
    const broken: Migration = { version: last + 2, name: "broken", sql: "CREATE TABLE half (id INT); SELECT no_such_column FROM labels" };
    expect(await migratePostgres(store!.pool)).toEqual(MIGRATIONS.map((migration) => migration.version));
    await expect(migratePostgres(store!.pool, [...MIGRATIONS, added, broken])).rejects.toThrow(/no_such_column/);
    const { rows } = await store!.pool.query<{ version: number }>("SELECT version FROM magis_schema_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual([...MIGRATIONS.map((migration) => migration.version), added.version]);
    const tables = await store!.pool.query("SELECT to_regclass('labels') AS labels, to_regclass('half') AS half");
    expect(tables.rows[0]).toEqual({ labels: "labels", half: null });
  });

  it("refuses a database migrated by a newer MAGIS, saying which version to run", async () => {
    const [store] = await openStores(await server.newDatabase(), 1);
    await store!.migrate();
    await store!.pool.query("INSERT INTO magis_schema_migrations (version, name) VALUES (99, 'from the future')");
    await expect(store!.migrate()).rejects.toThrow("This database was migrated by a newer MAGIS (version 99); run that version or newer");
  });

  it("records a delivery added by two processes at once exactly once", async () => {
    const url = await server.newDatabase();
    const [a, b] = await openStores(url, 2);
    await a!.migrate();
    for (let i = 0; i < 20; i++) {
      const added = await Promise.all([a!.jobs.add(job(`d-${i}`)), b!.jobs.add(job(`d-${i}`))]);
      expect(added.filter((record) => record !== null)).toHaveLength(1);
      const recorded = await Promise.all([
        a!.triggers.record({ ...job(`d-${i}`), event: "issues.labeled", receivedAt: i }),
        b!.triggers.record({ ...job(`d-${i}`), event: "issues.labeled", receivedAt: i }),
      ]);
      expect(recorded.filter(Boolean)).toHaveLength(1);
    }
    expect(await a!.jobs.withStatus("queued")).toHaveLength(20);
    expect(await b!.triggers.all()).toHaveLength(20);
  });

  it("takes index-cache writes from several processes at once, over crossing keys, without failing one or passing the bound", async () => {
    const url = await server.newDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url, { poolSize: 4, indexCacheBytes: 20_000 })));
    opened.push(...stores);
    await stores[0]!.migrate();
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    // Each process writes keys in its own order and marks as used the keys the others are writing: rows locked in crossing orders.
    const write = async (store: PostgresStore, offset: number) => {
      for (let round = 0; round < 10; round++) {
        const mine = keys.map((_, i) => keys[(i * (offset + 1) + round) % keys.length]!);
        await store.memory.index.writeTerms(
          mine.slice(0, 30).map((key) => [key, JSON.stringify({ [key]: "x".repeat(500 + offset) })]),
          mine.slice(30).reverse(),
        );
      }
    };
    await Promise.all(stores.map((store, offset) => write(store, offset)));
    expect(await stores[0]!.memory.index.bytes()).toBeLessThanOrEqual(20_000);
    expect((await stores[1]!.memory.index.readTerms(keys)).size).toBeGreaterThan(0);
  });

  it("reads and writes thousands of index-cache entries in a few statements", async () => {
    const [store] = await openStores(await server.newDatabase(), 1);
    await store!.migrate();
    const entries = Array.from({ length: 5000 }, (_, i): [string, string] => [`blob-${i}.ts`, JSON.stringify({ term: i })]);
    const statements = vi.spyOn(pg.Client.prototype, "query");
    try {
      await store!.memory.index.writeTerms(entries, ["blob-0.ts"]);
      expect(statements.mock.calls.length).toBeLessThanOrEqual(12);
      statements.mockClear();
      const read = await store!.memory.index.readTerms(entries.map(([key]) => key).concat("missing"));
      expect(statements.mock.calls.length).toBe(1);
      expect(read).toEqual(new Map(entries));
    } finally {
      statements.mockRestore();
    }
  });
});

describe("opening the PostgreSQL store", () => {
  const secret = "pw-0f9e8d7c6b5a-secret";

  it("says where it is as host:port/database, without the password", async () => {
    const url = await server.newDatabase();
    const store = await openPostgresStore(url);
    try {
      const address = new URL(url);
      expect(store.where).toBe(`${address.hostname}:${address.port || 5432}${address.pathname}`);
      if (address.password) expect(store.where).not.toContain(address.password);
    } finally {
      await store.close();
    }
  });

  it("reads BIGINT columns as numbers on its own pool, leaving pg's global parsers as they were", async () => {
    const store = await openPostgresStore(await server.newDatabase());
    try {
      const { rows } = await store.pool.query<{ big: unknown }>("SELECT 4200000001::bigint AS big");
      expect(rows[0]!.big).toBe(4_200_000_001);
      expect(store.kind).toBe("postgres");
      expect(pg.types.getTypeParser(pg.types.builtins.INT8, "text")("4200000001")).toBe("4200000001");
    } finally {
      await store.close();
    }
  });

  it("names the host and database it could not reach and what to check, never the password", async () => {
    const port = await freePort();
    const error = await openPostgresStore(`postgres://magis:${secret}@127.0.0.1:${port}/magis_jobs`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      new RegExp(`^Could not reach PostgreSQL at 127\\.0\\.0\\.1:${port}/magis_jobs: .*ECONNREFUSED.*Check that the server is running`),
    );
    expect(inspect(error)).not.toContain(secret);
  });

  it("says the user or password was refused, without the password", async () => {
    const address = new URL(server.url());
    address.username = "no_such_magis_user";
    address.password = secret;
    const error = await openPostgresStore(address.toString()).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/no_such_magis_user.*password/);
    expect(inspect(error)).not.toContain(secret);
  });

  it("refuses what is not a PostgreSQL URL, saying how to write one, without the password", async () => {
    for (const url of ["magis:secret@db.internal/magis", `postgres://magis:${secret}@db.internal:99999999/magis`]) {
      const error = await openPostgresStore(url).catch((caught: unknown) => caught);
      expect((error as Error).message).toContain("write it as postgres://user:password@host:port/database");
      expect(inspect(error)).not.toContain("secret");
    }
  });
});
