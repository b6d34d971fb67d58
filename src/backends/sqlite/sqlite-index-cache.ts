import { prepareLater, type Db } from "./database.js";
import { DEFAULT_INDEX_CACHE_BYTES, type TermCache } from "../../store/store.js";

/**
 * What the Custodian's index learned of each file, by git blob id (and extension): its term counts and
 * its definitions, as JSON. Blob ids name contents, so an entry serves any later job on any commit of
 * any repository holding the same bytes; a job tokenizes only the blobs none before it saw. The table
 * is bounded: past `maxBytes`, the entries used longest ago are evicted.
 */
export class SqliteIndexCache implements TermCache {
  // Prepared on first use: the store is made before its migrations create the table.
  private readonly selectTerms = prepareLater(() => this.db.prepare<[string], { terms: string }>("SELECT terms FROM index_cache WHERE key = ?"));
  private readonly selectDefinitions = prepareLater(() =>
    this.db.prepare<[string], { definitions: string | null }>("SELECT definitions FROM index_cache WHERE key = ?"),
  );
  private readonly insert = prepareLater(() =>
    // A key names a blob's bytes and the format they were read in: terms written again for it (two jobs on one
    // repository at once) are the same terms, and the definitions stored with them still hold.
    this.db.prepare<[string, string, number, number]>(
      "INSERT INTO index_cache (key, terms, definitions, bytes, used_at) VALUES (?, ?, NULL, ?, ?) ON CONFLICT (key) DO UPDATE SET used_at = excluded.used_at",
    ),
  );
  private readonly touch = prepareLater(() => this.db.prepare<[number, string]>("UPDATE index_cache SET used_at = ? WHERE key = ?"));
  private readonly updateDefinitions = prepareLater(() =>
    this.db.prepare<[string, number, number, string]>("UPDATE index_cache SET definitions = ?, bytes = length(terms) + ?, used_at = ? WHERE key = ?"),
  );
  private readonly total = prepareLater(() => this.db.prepare<[], { bytes: number | null }>("SELECT SUM(bytes) AS bytes FROM index_cache"));
  private readonly oldest = prepareLater(() => this.db.prepare<[], { key: string; bytes: number }>("SELECT key, bytes FROM index_cache ORDER BY used_at, key"));
  private readonly remove = prepareLater(() => this.db.prepare<[string]>("DELETE FROM index_cache WHERE key = ?"));
  private readonly writeBatch = prepareLater(() =>
    this.db.transaction((entries: Array<[string, string]>, used: string[]) => {
      const at = this.now();
      for (const key of used) this.touch().run(at, key);
      // A key given twice is written once, its last terms, as in the PostgreSQL store.
      for (const [key, terms] of new Map(entries)) this.insert().run(key, terms, terms.length, at);
      this.evict();
    }),
  );

  constructor(
    private readonly db: Db,
    private readonly maxBytes: number = DEFAULT_INDEX_CACHE_BYTES,
    private readonly now: () => number = Date.now,
  ) {}

  /** The stored terms of those keys it holds. */
  async readTerms(keys: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const key of keys) {
      const row = this.selectTerms().get(key);
      if (row) found.set(key, row.terms);
    }
    return found;
  }

  /** Stores new terms and marks `used` as used now, in one transaction, then evicts past the bound. */
  async writeTerms(entries: Array<[key: string, json: string]>, used: string[]): Promise<void> {
    this.writeBatch()(entries, used);
  }

  /** The stored definitions of a key, or null when never parsed (or the key is not held). */
  async readDefinitions(key: string): Promise<string | null> {
    return this.selectDefinitions().get(key)?.definitions ?? null;
  }

  /** Stores the definitions of a key whose terms are held (nothing happens otherwise). */
  async writeDefinitions(key: string, json: string): Promise<void> {
    this.updateDefinitions().run(json, json.length, this.now(), key);
  }

  /** Bytes held (terms and definitions, as characters of JSON). */
  async bytes(): Promise<number> {
    return this.total().get()?.bytes ?? 0;
  }

  /** Forgets everything (benchmarks start cold with it). */
  async clear(): Promise<void> {
    this.oldest()
      .all()
      .forEach((row) => this.remove().run(row.key));
  }

  /** Evicts the least recently used entries until a tenth of the bound is free, so the next jobs do not evict again at once. */
  private evict(): void {
    let held = this.total().get()?.bytes ?? 0;
    if (held <= this.maxBytes) return;
    for (const row of this.oldest().all()) {
      if (held <= this.maxBytes * 0.9) break;
      this.remove().run(row.key);
      held -= row.bytes;
    }
  }
}
