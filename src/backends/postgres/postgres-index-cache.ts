import type pg from "pg";
import { DEFAULT_INDEX_CACHE_BYTES, type TermCache } from "../../store/store.js";
import { ADVISORY_LOCKS } from "./advisory-locks.js";
import { inTransaction } from "./in-transaction.js";

/** Entries per INSERT: thousands of files' terms go in a few statements, none of them hundreds of megabytes. */
const WRITE_CHUNK = 1000;

/**
 * The Custodian's index cache (see index-cache.ts) in PostgreSQL, shared by every process: bounded, the least
 * recently used entries evicted down to 90 % of the bound.
 *
 * Every write of many rows (writeTerms, clear) runs in a transaction holding one advisory lock. A write touches the
 * used rows, upserts the new ones and evicts the oldest: three sets of rows locked in three orders, so two processes
 * writing at once could each hold a row the other waits for, and PostgreSQL would fail one of them as a deadlock.
 * Holding the lock, writers take turns (each write is a few statements), eviction sees the others' rows committed,
 * and readers never wait. writeDefinitions changes one row in its own statement, so it holds no row while it waits
 * for another and needs no lock.
 */
export class PostgresIndexCache implements TermCache {
  constructor(
    private readonly pool: pg.Pool,
    private readonly maxBytes: number = DEFAULT_INDEX_CACHE_BYTES,
    private readonly now: () => number = Date.now,
  ) {}

  async readTerms(keys: string[]): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ key: string; terms: string }>("SELECT key, terms FROM index_cache WHERE key = ANY($1::text[])", [keys]);
    return new Map(rows.map((row) => [row.key, row.terms]));
  }

  async writeTerms(entries: Array<[key: string, json: string]>, used: string[]): Promise<void> {
    // One INSERT may not update a row twice: a key given twice is written once. A key already held keeps its row: it
    // names a blob's bytes and the format they were read in, so its terms are the same and its definitions still hold.
    const latest = [...new Map(entries)];
    const at = this.now();
    await this.whileLocked(async (client) => {
      await client.query("UPDATE index_cache SET used_at = $1 WHERE key = ANY($2::text[])", [at, used]);
      for (let start = 0; start < latest.length; start += WRITE_CHUNK) {
        const chunk = latest.slice(start, start + WRITE_CHUNK);
        await client.query(
          `INSERT INTO index_cache (key, terms, definitions, bytes, used_at)
           SELECT key, terms, NULL, bytes, $4 FROM unnest($1::text[], $2::text[], $3::bigint[]) AS entry (key, terms, bytes)
           ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at`,
          [chunk.map(([key]) => key), chunk.map(([, terms]) => terms), chunk.map(([, terms]) => terms.length), at],
        );
      }
      await this.evict(client);
    });
  }

  async readDefinitions(key: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ definitions: string | null }>("SELECT definitions FROM index_cache WHERE key = $1", [key]);
    return rows[0]?.definitions ?? null;
  }

  async writeDefinitions(key: string, json: string): Promise<void> {
    await this.pool.query("UPDATE index_cache SET definitions = $1, bytes = length(terms) + $2, used_at = $3 WHERE key = $4", [
      json,
      json.length,
      this.now(),
      key,
    ]);
  }

  async bytes(): Promise<number> {
    return held(this.pool);
  }

  async clear(): Promise<void> {
    await this.whileLocked((client) => client.query("DELETE FROM index_cache"));
  }

  /** Evicts the least recently used entries until a tenth of the bound is free, so the next jobs do not evict again at once. */
  private async evict(client: pg.PoolClient): Promise<void> {
    if ((await held(client)) <= this.maxBytes) return;
    // An entry goes when what is held without the entries used before it is still above 90 % of the bound.
    await client.query(
      `DELETE FROM index_cache WHERE key IN (
         SELECT key FROM (
           SELECT key, SUM(bytes) OVER () - SUM(bytes) OVER (ORDER BY used_at, key ROWS UNBOUNDED PRECEDING) + bytes AS from_here
           FROM index_cache
         ) oldest_first
         WHERE from_here > $1
       )`,
      [this.maxBytes * 0.9],
    );
  }

  private async whileLocked(write: (client: pg.PoolClient) => Promise<unknown>): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1, $2)", [...ADVISORY_LOCKS.indexCache]);
      await write(client);
    });
  }
}

async function held(db: pg.Pool | pg.PoolClient): Promise<number> {
  const { rows } = await db.query<{ bytes: number }>("SELECT COALESCE(SUM(bytes), 0)::bigint AS bytes FROM index_cache");
  return rows[0]?.bytes ?? 0;
}
