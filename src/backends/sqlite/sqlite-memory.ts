import { deflateRawSync, inflateRawSync } from "node:zlib";
import { prepareLater, type Db } from "./database.js";
import type { MemoryStore, RememberedFile } from "../../store/store.js";
import { SqliteIndexCache } from "./sqlite-index-cache.js";

/**
 * The repository evolution memory of MAGIS (Algorithm 1, `find` and `M.update`): per repository and
 * path, the last version of the file the Custodian summarized, and that summary.
 *
 * The text of that version is stored with it (deflated), not fetched again by blob id when the file
 * changes: the app works on fresh shallow clones (depth 1), which hold only the current blobs, so the
 * earlier version would need one GitHub API call per changed file — network, rate limits, and no remote
 * at all for `magis locate` on a plain folder. Only the top-k candidates of each run are stored, each
 * under the size cap, so the cost is a few kilobytes per file.
 */
export class SqliteMemory implements MemoryStore {
  /** The Custodian's index of the files' terms and definitions by blob id, in the same store. */
  readonly index: SqliteIndexCache;
  // Prepared on first use: the store is made before its migrations create the table.
  private readonly select = prepareLater(() =>
    this.db.prepare<[string, string], { blob_id: string; summary: string; content: Uint8Array }>(
      "SELECT blob_id, summary, content FROM custodian_memory WHERE repo = ? AND path = ?",
    ),
  );
  private readonly upsert = prepareLater(() =>
    this.db.prepare<[string, string, string, string, Uint8Array, number]>(
      `INSERT INTO custodian_memory (repo, path, blob_id, summary, content, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (repo, path) DO UPDATE SET blob_id = excluded.blob_id, summary = excluded.summary,
         content = excluded.content, updated_at = excluded.updated_at`,
    ),
  );
  private readonly deleteRepo = prepareLater(() => this.db.prepare<[string]>("DELETE FROM custodian_memory WHERE repo = ?"));
  // Compared as a prefix, not with LIKE: `_` in a name is a character, not a wildcard.
  private readonly deleteOwner = prepareLater(() => this.db.prepare<[string, string]>("DELETE FROM custodian_memory WHERE substr(repo, 1, length(?)) = ?"));

  constructor(
    private readonly db: Db,
    index?: SqliteIndexCache,
  ) {
    this.index = index ?? new SqliteIndexCache(db);
  }

  /** The last version of `path` in `repo` the memory holds, or null when the file was never summarized. */
  async recall(repo: string, path: string): Promise<RememberedFile | null> {
    const row = this.select().get(repo, path);
    if (!row) return null;
    return { blobId: row.blob_id, summary: row.summary, text: inflateRawSync(row.content).toString("utf8") };
  }

  /** Stores `file` as the latest version of `path` in `repo`, replacing the one before. */
  async remember(repo: string, path: string, file: RememberedFile, now: number = Date.now()): Promise<void> {
    this.upsert().run(repo, path, file.blobId, file.summary, deflateRawSync(Buffer.from(file.text, "utf8")), now);
  }

  /** Forgets the files of those repositories, and of every repository of those accounts, in one transaction. */
  async forget({ repos = [], owners = [] }: { repos?: string[]; owners?: string[] }): Promise<number> {
    return this.db.transaction(() => {
      let forgotten = 0;
      for (const repo of repos) forgotten += this.deleteRepo().run(repo).changes;
      for (const owner of owners) forgotten += this.deleteOwner().run(`${owner}/`, `${owner}/`).changes;
      return forgotten;
    })();
  }
}
