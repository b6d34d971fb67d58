import { parseDefinitions, type Definition } from "../../edit/syntax/parse-definitions.js";
import { gitBlobId } from "../../git/git-object-id.js";
import { sharedTermCounter, type TermCounter } from "./count-terms.js";
import { documentsOf, type FileTerms, type PreparedFile, type RankInput } from "./prepare-document.js";
import { extensionOf } from "./extension-of.js";
import type { Pause } from "../../lib/slice-work.js";
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
  /** How many files this job tokenized, here or while its clone wrote them (the others were remembered). */
  tokenized: number;
  /**
   * Stores the terms this job tokenized for the next job, once however often called: it yields to the event loop
   * first and then works in slices, so that requests already under way (the model's) go out before it.
   */
  remember: () => Promise<void>;
  /** Stores a file's parsed definitions (JSON) with its terms: at once when they are stored, else once `remember` stored them. */
  storeDefinitions: (key: string, json: string) => Promise<void>;
}

interface StoredTerms {
  terms: string[];
  counts: number[];
  defined: string[];
  /** The defined names' terms (see FileTerms.definedTerms). */
  definedTerms: string[];
}

// Bumped whenever tokenizing, the definition parse or the stored form changes: entries of an older format are never
// read again, and age out of the cache. 4: the defined names' terms are stored too.
const CACHE_FORMAT = 4;

/**
 * The cache key of a file: the format, its blob id, and what decides how it is read (its extension; for a file
 * without one its name, since `Rakefile` and `README` are read differently).
 */
export function termsKey(path: string, blobId: string): string {
  return `${CACHE_FORMAT}:${blobId}.${extensionOf(path) || path.slice(path.lastIndexOf("/") + 1)}`;
}

function cacheKey(file: RankInput): string {
  return termsKey(file.path, file.oid ?? gitBlobId(file.bytes ?? Buffer.from(file.text, "utf8")));
}

/** A file's terms as the store keeps them: JSON of parallel arrays. */
export function parseTerms(json: string): FileTerms {
  const parsed = JSON.parse(json) as StoredTerms;
  // Filled in a loop, not from [term, count] pairs: a pair per term (460,000 for sympy) was half of reading them back.
  const counts = new Map<string, number>();
  const { terms, counts: numbers } = parsed;
  for (let i = 0; i < terms.length; i++) counts.set(terms[i]!, numbers[i]!);
  return { counts, defined: parsed.defined, definedTerms: parsed.definedTerms };
}

function storedForm(terms: FileTerms): string {
  return JSON.stringify({
    terms: [...terms.counts.keys()],
    counts: [...terms.counts.values()],
    defined: terms.defined,
    definedTerms: terms.definedTerms,
  } satisfies StoredTerms);
}

// Most bytes of parsed terms a process keeps per store in front of it: sympy's 2,000 files (459,000 terms) take
// about 50 MB of heap.
const MEMO_BYTES = 128 * 1024 * 1024;

/**
 * The terms of blobs this process tokenized or read from one store lately, parsed, least recently used dropped
 * first: the next job on the same repository in this process neither parses them again nor asks the store.
 * `stored` says the store holds them too (a clone's primed terms are written by the job that uses them).
 */
export class TermMemo {
  private readonly entries = new Map<string, { terms: FileTerms; size: number; stored: boolean }>();
  private bytes = 0;

  constructor(readonly maxBytes = MEMO_BYTES) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): { terms: FileTerms; stored: boolean } | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  markStored(key: string): void {
    const entry = this.entries.get(key);
    if (entry) entry.stored = true;
  }

  /** Keeps the terms (most recently used), dropping the least recently used past the bound; returns their estimated size. */
  set(key: string, terms: FileTerms, stored: boolean): number {
    const old = this.entries.get(key);
    if (old) this.bytes -= old.size;
    this.entries.delete(key);
    // Roughly what V8 spends, as measured on sympy: a map entry and a string per term, about 110 bytes each.
    let size = 100;
    for (const term of terms.counts.keys()) size += 80 + 2 * term.length;
    for (const name of terms.defined) size += 40 + 2 * name.length;
    for (const term of terms.definedTerms) size += 40 + 2 * term.length;
    this.entries.set(key, { terms, size, stored });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.size;
    }
    return size;
  }
}

/**
 * The store's index cache with this process's memo in front of it: the wiring makes one for its store and hands it to
 * every job (see openJobIndex), so that a job finds what an earlier one in the process tokenized or read, and a
 * clone's primed terms reach the job's index.
 */
export interface TermMemory {
  cache: TermCache;
  memo: TermMemo;
}

/**
 * The BM25 documents of the files, tokenizing only blobs the cache (or its memo) has not seen: a job on a repository
 * whose files mostly did not change since the last job reads their counts back instead of tokenizing
 * them again. New blobs are stored for the next job by `remember`, which the caller runs when it suits it. `counter`
 * tokenizes the others, in batches spread over its worker threads (see TermCounter).
 */
export async function rememberedTerms(
  files: RankInput[],
  termMemory: TermMemory | null,
  pause: Pause,
  counter: TermCounter = sharedTermCounter(),
): Promise<RememberedTerms> {
  const keys = files.map(cacheKey);
  const cache = termMemory?.cache ?? null;
  const memo = termMemory?.memo ?? null;
  // Taken before any file is added: a repository larger than the memo evicts its own files as they are read.
  const held = keys.map((key) => memo?.get(key));
  const unknown = keys.filter((_, index) => cache && !held[index]);
  const stored = cache && unknown.length > 0 ? await readQuietly(() => cache.readTerms(unknown), new Map<string, string>()) : new Map<string, string>();
  const counted = await countUnknown(files, (index) => !held[index] && !stored.has(keys[index]!), counter);
  const fresh: Array<[string, FileTerms]> = [];
  const documents: PreparedFile[] = [];
  const defined: string[][] = [];
  let tokenized = 0;
  for (const [index, file] of files.entries()) {
    const key = keys[index]!;
    const remembered = held[index];
    const json = remembered ? undefined : stored.get(key);
    let terms: FileTerms;
    if (remembered) {
      terms = remembered.terms;
      if (!remembered.stored) {
        // Tokenized for this job while its clone wrote the file (see primeTerms), and not yet stored.
        fresh.push([key, terms]);
        tokenized++;
      }
    } else if (json !== undefined) {
      terms = parseTerms(json);
      memo?.set(key, terms, true);
    } else {
      terms = counted.get(index)!;
      tokenized++;
      if (cache) fresh.push([key, terms]);
      memo?.set(key, terms, false);
    }
    documents.push(documentsOf(file.path, terms));
    defined.push(terms.defined);
    await pause();
  }
  // The store keeps a blob's definitions in its terms' entry: those parsed before the terms are stored wait for them.
  const freshKeys = new Set(fresh.map(([key]) => key));
  const waiting: Array<[string, string]> = [];
  let termsStored = false;
  const storeDefinitions = async (key: string, json: string) => {
    if (freshKeys.has(key) && !termsStored) waiting.push([key, json]);
    else await rememberQuietly(() => cache?.writeDefinitions(key, json));
  };
  let storing: Promise<void> | undefined;
  const remember = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const entries: Array<[string, string]> = [];
    for (const [key, terms] of fresh) {
      entries.push([key, storedForm(terms)]);
      await pause();
    }
    if (await rememberQuietly(() => cache?.writeTerms(entries, keys))) {
      for (const [key] of fresh) memo?.markStored(key);
    }
    termsStored = true;
    for (const [key, json] of waiting.splice(0)) await storeDefinitions(key, json);
  };
  return { documents, defined, keys, tokenized, remember: () => (storing ??= remember()), storeDefinitions };
}

// Files in one request to the counter: enough that the messages cost little, few enough that both workers get some.
const COUNT_BATCH = 200;

/** The terms of the files `unknown` picks (by index), counted in batches through `counter` at once; by index. */
async function countUnknown(files: RankInput[], unknown: (index: number) => boolean, counter: TermCounter): Promise<Map<number, FileTerms>> {
  const picked = [...files.keys()].filter(unknown);
  const batches: number[][] = [];
  for (let at = 0; at < picked.length; at += COUNT_BATCH) batches.push(picked.slice(at, at + COUNT_BATCH));
  const counted = await Promise.all(batches.map((batch) => counter.count(batch.map((index) => files[index]!))));
  return new Map(batches.flatMap((batch, b) => batch.map((index, i) => [index, counted[b]![i]!] as const)));
}

/** Where rememberedDefinitions looks a blob's definitions up, counts its parses, and remembers them. */
export interface DefinitionMemory {
  /** Read first: a blob an earlier job parsed is not parsed again (null: no cache). */
  cache: TermCache | null;
  /** Counts the parses. */
  stats: { parsed: number };
  /** Remembers a parse (see RememberedTerms.storeDefinitions). */
  store: (key: string, json: string) => Promise<void>;
}

/**
 * A file's definitions (see parseDefinitions), parsed once per blob and then remembered (by `store`, see
 * RememberedTerms); `stats.parsed` counts the parses.
 */
export async function rememberedDefinitions(file: RankInput, key: string, { cache, stats, store }: DefinitionMemory): Promise<Definition[]> {
  const json = cache ? await readQuietly(() => cache.readDefinitions(key), null) : null;
  if (json) return JSON.parse(json) as Definition[];
  const definitions = (await parseDefinitions(file.text, file.path)) ?? [];
  stats.parsed++;
  await store(key, JSON.stringify(definitions));
  return definitions;
}

/**
 * Writes to the index cache when the store lets it: the cache only saves work, so a store another process holds
 * locked, or a full disk, costs the next job some tokenizing, never this job its run.
 */
async function rememberQuietly(write: () => Promise<void> | undefined): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (!isStoreRefusal(error)) throw error;
    return false;
  }
}

/** Reads from the index cache when the store lets it; a refusal reads as `nothing` (an empty cache). */
export async function readQuietly<T>(read: () => Promise<T>, nothing: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isStoreRefusal(error)) throw error;
    return nothing;
  }
}

/**
 * SQLite's errors (SQLITE_BUSY, SQLITE_FULL from better-sqlite3; ERR_SQLITE_ERROR from node:sqlite) and PostgreSQL's (an
 * SQLSTATE of five characters: lock timeouts, a full disk, a lost connection).
 */
function isStoreRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (/^(ERR_)?SQLITE_/.test(code) || /^[0-9A-Z]{5}$/.test(code) || code === "ECONNRESET" || code === "ECONNREFUSED");
}
