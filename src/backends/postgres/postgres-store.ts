import pg from "pg";
import { redactSecrets } from "../../lib/redact-secrets.js";
import type { Store } from "../../store/store.js";
import { migratePostgres } from "./migrations.js";
import { PostgresIndexCache } from "./postgres-index-cache.js";
import { PostgresJobStore } from "./postgres-jobs.js";
import { PostgresMemoryStore } from "./postgres-memory.js";
import { PostgresSessionStore } from "./postgres-sessions.js";
import { PostgresTriggerStore } from "./postgres-triggers.js";

/** How to open the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Connections this process opens at most, the job queue's included (pg's default: 10). */
  poolSize?: number;
  /** The index cache's bound, in characters of JSON (default: DEFAULT_INDEX_CACHE_BYTES). */
  indexCacheBytes?: number;
  /** The name the server shows for these connections (pg_stat_activity), to tell the processes apart (default: magis). */
  applicationName?: string;
  /** The clock the records' times come from (tests fix it). */
  now?: () => number;
}

/**
 * How long to wait for a connection before giving up: a server behind a firewall that drops packets would otherwise
 * hold the start-up (or a webhook) for the two minutes TCP takes to give up.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/** BIGINT columns (ids, times in ms) as numbers, not strings: they stay far below 2^53. Set on this pool only, not on pg's global parsers. */
const BIGINT_AS_NUMBER: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Job records and their sessions, triggers, the evolution memory and the index cache in one PostgreSQL database, shared by every process of the app. */
export class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly jobs: PostgresJobStore;
  readonly triggers: PostgresTriggerStore;
  readonly memory: PostgresMemoryStore;
  readonly sessions: PostgresSessionStore;

  constructor(
    /** The connections, which the job queue shares. */
    readonly pool: pg.Pool,
    /** host:port/database, never the password. */
    readonly where: string,
    options: PostgresStoreOptions = {},
    /** The URL's password, kept out of error messages. */
    private readonly password?: string,
  ) {
    const now = options.now ?? Date.now;
    this.jobs = new PostgresJobStore(pool, where, now);
    this.triggers = new PostgresTriggerStore(pool, where, now);
    this.memory = new PostgresMemoryStore(pool, new PostgresIndexCache(pool, options.indexCacheBytes, now), now);
    this.sessions = new PostgresSessionStore(pool);
  }

  migrate(): Promise<number[]> {
    return migratePostgres(this.pool);
  }

  async ping(): Promise<void> {
    try {
      await this.pool.query("SELECT 1");
    } catch (error) {
      const reason = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
      throw new Error(
        `Could not reach PostgreSQL at ${this.where}: ${redactSecrets(reason, [this.password])}. Check that the server is running and ` +
          "accepts connections from this machine, and the host, port, user name, password and database in the database URL (DATABASE_URL).",
        { cause: error },
      );
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /**
   * A pool of `max` connections of its own on the same database, for work that must not wait behind the store's
   * connections (a worker's heartbeat, while its jobs hold every one of them). The caller ends it.
   */
  separatePool(max: number): pg.Pool {
    return guardedPool({ ...this.pool.options, max });
  }
}

/**
 * Opens the store in the database at `url` (postgres://user:password@host:port/database) and checks that it answers;
 * does not migrate (see `migrate`). Throws an error naming the host and database, never the password, when the URL
 * is not one or the server cannot be reached.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const target = readUrl(url);
  const pool = guardedPool({
    connectionString: url,
    max: options.poolSize,
    application_name: options.applicationName ?? "magis",
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types: BIGINT_AS_NUMBER,
  });
  const store = new PostgresStore(pool, target.where, options, target.password);
  try {
    await store.ping();
  } catch (error) {
    await pool.end();
    throw error;
  }
  return store;
}

/** A pool whose dropped connections fail their own queries instead of ending the process. */
function guardedPool(config: pg.PoolConfig): pg.Pool {
  // TCP keepalive from 10 s of quiet: a connection whose peer vanished (a failover, a cut network) is found dead by the
  // system's probes (minutes, with Linux's defaults) instead of never, for a connection idle between heartbeats.
  const pool = new pg.Pool({ keepAlive: true, keepAliveInitialDelayMillis: 10_000, ...config });
  // An idle connection the server drops (a restart, a failover) is an 'error' event, which would end the process
  // unheard; the pool discards that connection and the next query opens another, or fails with its own error.
  pool.on("error", () => {});
  // The same for a connection that is checked out (graphile-worker's LISTEN connection, a transaction's): its query fails.
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/** Where `url` points (host:port/database, as pg reads it, environment defaults included) and its password. */
function readUrl(url: string): { where: string; password?: string } {
  const shape = "write it as postgres://user:password@host:port/database, with special characters in the password percent-encoded";
  // pg reads any other text as a path relative to "postgres://base" and would go looking for a host named "base".
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new Error(`The database URL (DATABASE_URL) is not a PostgreSQL URL: ${shape}.`);
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: url });
  } catch {
    // The parser's error may carry the URL: it is not passed on.
    throw new Error(`The database URL (DATABASE_URL) could not be read: ${shape}.`);
  }
  return { where: `${client.host}:${client.port}/${client.database}`, password: client.password };
}
