import { parseDefinitions, type Definition } from "../../edit/syntax/parse-definitions.js";
import { gitBlobId } from "./hash-blob.js";
import { countFile, documentsOf, type FileTerms, type PreparedFile, type RankInput } from "./prepare-document.js";
import { extensionOf } from "./score-path.js";
import type { Pause } from "./slice-work.js";
import type { TermCache as StoreTermCache } from "../../store/store.js";

/** Where indexing remembers what it learned of a file, by blob id across jobs (the store's index cache). */
export type TermCache = Pick<StoreTermCache, "readTerms" | "writeTerms" | "readDefinitions" | "writeDefinitions">;

/** What {@link rememberedTerms} returns, per file in input order. */
export interface RememberedTerms {
  documents: PreparedFile[];
  /** Names the fast pass says each file defines. */
  defined: string[][];
  /** The cache key of each file: its blob id and extension (the fast pass reads a file by its language). */
  keys: string[];
  /** How many files had to be tokenized (the others were remembered). */
  tokenized: number;
}

interface StoredTerms {
  terms: string[];
  counts: number[];
  defined: string[];
}

// Bumped whenever tokenizing or the definition parse changes: entries of an older format are never read again, and
// age out of the cache.
const CACHE_FORMAT = 1;

/**
 * The cache key of a file: the format, its blob id, and what decides how it is read (its extension; for a file
 * without one its name, since `Rakefile` and `README` are read differently).
 */
function cacheKey(file: RankInput): string {
  const name = file.path.slice(file.path.lastIndexOf("/") + 1);
  return `${CACHE_FORMAT}:${gitBlobId(file.bytes ?? Buffer.from(file.text, "utf8"))}.${extensionOf(file.path) || name}`;
}

/**
 * The BM25 documents of the files, tokenizing only blobs the cache has not seen: a job on a repository
 * whose files mostly did not change since the last job reads their counts back instead of tokenizing
 * them again. New blobs are stored for the next job.
 */
export async function rememberedTerms(files: RankInput[], cache: TermCache | null, pause: Pause): Promise<RememberedTerms> {
  const keys = files.map(cacheKey);
  const stored = (await cache?.readTerms(keys)) ?? new Map<string, string>();
  const fresh: Array<[string, string]> = [];
  const documents: PreparedFile[] = [];
  const defined: string[][] = [];
  let tokenized = 0;
  for (const [index, file] of files.entries()) {
    const json = stored.get(keys[index]!);
    let terms: FileTerms;
    if (json !== undefined) {
      const parsed = JSON.parse(json) as StoredTerms;
      terms = { counts: new Map(parsed.terms.map((term, i) => [term, parsed.counts[i]!])), defined: parsed.defined };
    } else {
      terms = countFile(file);
      tokenized++;
      if (cache) fresh.push([keys[index]!, JSON.stringify({ terms: [...terms.counts.keys()], counts: [...terms.counts.values()], defined: terms.defined } satisfies StoredTerms)]);
    }
    documents.push(documentsOf(file.path, terms));
    defined.push(terms.defined);
    await pause();
  }
  await rememberQuietly(() => cache?.writeTerms(fresh, keys));
  return { documents, defined, keys, tokenized };
}

/** A file's definitions (see parseDefinitions), parsed once per blob and then remembered; `stats.parsed` counts the parses. */
export async function rememberedDefinitions(file: RankInput, key: string, cache: TermCache | null, stats: { parsed: number }): Promise<Definition[]> {
  const json = await cache?.readDefinitions(key);
  if (json) return JSON.parse(json) as Definition[];
  const definitions = (await parseDefinitions(file.text, file.path)) ?? [];
  stats.parsed++;
  await rememberQuietly(() => cache?.writeDefinitions(key, JSON.stringify(definitions)));
  return definitions;
}

/**
 * Writes to the index cache when the store lets it: the cache only saves work, so a store another process holds
 * locked, or a full disk, costs the next job some tokenizing, never this job its run.
 */
async function rememberQuietly(write: () => Promise<void> | undefined): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isStoreRefusal(error)) throw error;
  }
}

/** SQLite's errors (SQLITE_BUSY, SQLITE_FULL) and PostgreSQL's (an SQLSTATE of five characters: lock timeouts, a full disk, a lost connection). */
function isStoreRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (/^SQLITE_/.test(code) || /^[0-9A-Z]{5}$/.test(code) || code === "ECONNRESET" || code === "ECONNREFUSED");
}
