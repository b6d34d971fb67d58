import { promisify } from "node:util";
import { deflateRaw, inflateRaw } from "node:zlib";
import type pg from "pg";
import type { MemoryStore, RememberedFile, TermCache } from "../../store/store.js";

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * The repository evolution memory in PostgreSQL (see sqlite-memory.ts for why the text is stored): the text is deflated
 * (raw deflate, as in SQLite), on the thread pool so that a large file does not hold the event loop.
 */
export class PostgresMemoryStore implements MemoryStore {
  constructor(
    private readonly pool: pg.Pool,
    readonly index: TermCache,
    private readonly now: () => number = Date.now,
  ) {}

  async recall(repo: string, path: string): Promise<RememberedFile | null> {
    const { rows } = await this.pool.query<{ blob_id: string; summary: string; content: Buffer }>(
      "SELECT blob_id, summary, content FROM custodian_memory WHERE repo = $1 AND path = $2",
      [repo, path],
    );
    const row = rows[0];
    if (!row) return null;
    return { blobId: row.blob_id, summary: row.summary, text: (await inflate(row.content)).toString("utf8") };
  }

  async remember(repo: string, path: string, file: RememberedFile, now: number = this.now()): Promise<void> {
    await this.pool.query(
      `INSERT INTO custodian_memory (repo, path, blob_id, summary, content, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (repo, path) DO UPDATE SET blob_id = excluded.blob_id, summary = excluded.summary,
         content = excluded.content, updated_at = excluded.updated_at`,
      [repo, path, file.blobId, file.summary, await deflate(Buffer.from(file.text, "utf8")), now],
    );
  }

  async forget({ repos = [], owners = [] }: { repos?: string[]; owners?: string[] }): Promise<number> {
    // Owners compared as a prefix, not with LIKE: `_` in a name is a character, not a wildcard.
    const { rowCount } = await this.pool.query("DELETE FROM custodian_memory WHERE repo = ANY($1::text[]) OR left(repo, strpos(repo, '/')) = ANY($2::text[])", [
      repos,
      owners.map((owner) => `${owner}/`),
    ]);
    return rowCount ?? 0;
  }
}
