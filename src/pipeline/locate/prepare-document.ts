import { extractDefinitions } from "./extract-definitions.js";
import { countTermsByChunk, tokenizeCode } from "./tokenize-code.js";

/** A file to rank: its repository-relative path and its text. */
export interface RankInput {
  path: string;
  text: string;
  /** The bytes as read, when at hand: their git blob id keys the index cache (else the text's UTF-8 is hashed). */
  bytes?: Uint8Array;
  /** That blob id, when known already. */
  oid?: string;
}

/** What the index needs of one file, computed from its path and text alone. */
export interface PreparedFile {
  /** Term counts of the whole file, then of each chunk when the file has more than two chunks. */
  text: Array<Map<string, number>>;
  /** The terms of its path and of the names it defines. */
  names: { path: string[]; defs: string[] };
}

/**
 * The terms of a path: its folders and file name, whole and split, but not the extension on its own:
 * every `.rst` page would otherwise share the term "rst" with `rst.py`, and every Python file "py".
 */
export function pathTerms(path: string): string[] {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  return [...tokenizeCode(path.slice(0, slash + 1).replace(/\//g, " ")), name.toLowerCase(), ...tokenizeCode(stem)];
}

function mergeCounts(chunks: Array<Map<string, number>>): Map<string, number> {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Map<string, number>();
  for (const chunk of chunks) for (const [term, count] of chunk) all.set(term, (all.get(term) ?? 0) + count);
  return all;
}

/** What indexing learns from a file's bytes alone, the part worth remembering by blob id: its term counts and the names it defines. */
export interface FileTerms {
  /** Term counts of the whole text. */
  counts: Map<string, number>;
  /** The names {@link extractDefinitions} finds, exact case: the cheap definition pass over every file. */
  defined: string[];
  /**
   * Their terms (see definedTerms), kept with them: a later job reading a file's terms back from the store would
   * otherwise tokenize every file's names again, as much work as reading them back.
   */
  definedTerms: string[];
}

/** The terms of the names a file defines, as its names document counts them. */
export function definedTerms(defined: string[]): string[] {
  return tokenizeCode(defined.join(" "));
}

/** Tokenizes and counts one file's whole text and lists the names it defines; most of the work of indexing. */
export function countFile(file: RankInput): FileTerms {
  const defined = extractDefinitions(file.text, file.path);
  return { counts: countTermsByChunk(file.text, Infinity)[0]!, defined, definedTerms: definedTerms(defined) };
}

/** The BM25 documents of a file from its counted terms (whole file only). */
export function documentsOf(path: string, terms: FileTerms): PreparedFile {
  return { text: [terms.counts], names: { path: pathTerms(path), defs: terms.definedTerms } };
}

/**
 * Tokenizes and counts one file for the index: its text as term counts (whole, and per run of
 * `chunkLines` lines; Infinity for whole files only), its path and the names it defines as terms.
 */
export function prepareFile(file: RankInput, chunkLines: number): PreparedFile {
  if (chunkLines === Infinity) return documentsOf(file.path, countFile(file));
  const chunks = countTermsByChunk(file.text, chunkLines);
  const defined = extractDefinitions(file.text, file.path);
  const prepared = documentsOf(file.path, { counts: mergeCounts(chunks), defined, definedTerms: definedTerms(defined) });
  if (chunks.length > 2) prepared.text.push(...chunks);
  return prepared;
}
