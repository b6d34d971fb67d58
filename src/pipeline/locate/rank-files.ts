import bm25, { type Bm25Engine } from "wink-bm25-text-search";
import type { RankedFile } from "../types.js";
import type { WeightedQuery } from "./build-query.js";
import { extractDefinitions } from "./extract-definitions.js";
import { mainExtensions, mentionStrength, pathPrior } from "./score-path.js";
import { countTermsByChunk, tokenizeCode } from "./tokenize-code.js";

/** A file to rank: its repository-relative path and its text. */
export interface RankInput {
  path: string;
  text: string;
}

/** Knobs of the ranking; the defaults are what the localization benchmark supports. */
export interface RankOptions {
  /** Lines per chunk when chunks are scored (fileShare < 1). */
  chunkLines: number;
  /** Weight of the names score (path and defined names) added to the text score. */
  namesShare: number;
  /** Weight of the path within the names (its words count this many times). */
  pathWeight: number;
  /** Weight of the defined names within the names. */
  defsWeight: number;
  /** Weight of the whole-file score against the best chunk's (1: whole files only, 0: best chunk only). */
  fileShare: number;
  /** How much one unit of mention strength (see mentionStrength) multiplies a file's score. */
  mentionBoost: number;
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25 length normalization (0: none, 1: full). */
  b: number;
}

/** The ranking the Custodian uses; chunk scoring is off because it did not beat whole files on the benchmarks. */
export const DEFAULT_RANK_OPTIONS: RankOptions = {
  chunkLines: 120,
  namesShare: 1,
  pathWeight: 3,
  defsWeight: 2,
  fileShare: 1,
  mentionBoost: 0.2,
  k1: 1.2,
  b: 0.75,
};

// Query weights are fractional; wink adds a term once per occurrence in the query text, so a weight
// becomes a number of repetitions at this resolution.
const REPEATS_PER_UNIT = 2;
const PADDING = "\u0000pad";

// wink counts a term once per occurrence, which costs about a microsecond each: millions for a large
// repository. Instead, each distinct term of a document goes once into the fields whose weights
// (powers of two) sum to its count, so wink sees exactly the same term frequencies and lengths with
// a fraction of the work. Counts above the largest sum are capped; BM25 has saturated long before.
const COUNT_FIELDS = [1, 2, 4, 8, 16, 32, 64].map((weight) => ({ name: `tf${weight}`, weight }));

function splitWords(text: string): string[] {
  return text === "" ? [] : text.split(" ");
}

function queryText(query: WeightedQuery): string {
  const words: string[] = [];
  for (const [term, weight] of query.terms) {
    const repeats = Math.max(1, Math.round(weight * REPEATS_PER_UNIT));
    for (let i = 0; i < repeats; i++) words.push(term);
  }
  return words.join(" ");
}

interface Doc {
  id: string;
  fields: Record<string, string>;
}

function countFields(counts: Map<string, number>): Record<string, string> {
  const buckets: string[][] = COUNT_FIELDS.map(() => []);
  for (const [term, count] of counts) {
    const capped = Math.min(count, 127);
    COUNT_FIELDS.forEach((field, i) => {
      if (capped & field.weight) buckets[i]!.push(term);
    });
  }
  return Object.fromEntries(COUNT_FIELDS.map((field, i) => [field.name, buckets[i]!.join(" ")]));
}

const COUNT_WEIGHTS = Object.fromEntries(COUNT_FIELDS.map((field) => [field.name, field.weight]));

/** Builds one consolidated BM25 index (wink) over the documents. */
function buildEngine(docs: Doc[], fldWeights: Record<string, number>, options: RankOptions): Bm25Engine {
  const engine = bm25();
  engine.defineConfig({ fldWeights, bm25Params: { k1: options.k1, b: options.b, k: 1 } });
  // Everything arrives tokenized, so wink only splits on spaces.
  engine.definePrepTasks([splitWords]);
  for (const doc of docs) engine.addDoc(doc.fields, doc.id);
  // wink refuses to consolidate fewer than three documents; empty ones leave the others' order unchanged.
  const empty = Object.fromEntries(Object.keys(fldWeights).map((field) => [field, ""]));
  for (let i = docs.length; i < 3; i++) engine.addDoc(empty, `${PADDING}${i}`);
  engine.consolidate();
  return engine;
}

/** Scores of every document sharing a term with the query text. */
function search(engine: Bm25Engine, text: string): Map<string, number> {
  const scores = new Map<string, number>();
  for (const [id, score] of engine.search(text, engine.getTotalDocs())) {
    if (!id.startsWith(PADDING)) scores.set(id, score / REPEATS_PER_UNIT);
  }
  return scores;
}

/**
 * The terms of a path: its folders and file name, whole and split, but not the extension on its own:
 * every `.rst` page would otherwise share the term "rst" with `rst.py`, and every Python file "py".
 */
export function pathTerms(path: string): string {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  return [...tokenizeCode(path.slice(0, slash + 1).replace(/\//g, " ")), name.toLowerCase(), ...tokenizeCode(stem)].join(" ");
}

function mergeCounts(chunks: Array<Map<string, number>>): Map<string, number> {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Map<string, number>();
  for (const chunk of chunks) for (const [term, count] of chunk) all.set(term, (all.get(term) ?? 0) + count);
  return all;
}

/** A built index of a repository's files; build once per run (wink takes no documents after it is built), query as often as needed. */
export interface FileIndex {
  /** The files best matching the query, best first, ties by path; files sharing no term are left out. */
  rank(query: WeightedQuery, top: number): RankedFile[];
}

/**
 * Indexes files for BM25 (wink-bm25-text-search) as code-tokenized text, and separately their paths
 * and the names they define: in one index with the text those few terms would drown in the text's
 * saturated term frequencies, and scored on their own they keep a long file that defines what the
 * issue names from losing merely by its length. With fileShare < 1, files longer than two chunks
 * also score as their best chunk of lines. A file's score is multiplied by a boost when the issue
 * names it and by a prior that tests, docs and settings are rarely what a fix changes.
 */
export function indexFiles(files: RankInput[], options: RankOptions = DEFAULT_RANK_OPTIONS): FileIndex {
  if (files.length === 0) return { rank: () => [] };
  const textDocs: Doc[] = [];
  const nameDocs: Doc[] = [];
  files.forEach((file, index) => {
    const defs = tokenizeCode(extractDefinitions(file.text, file.path).join(" ")).join(" ");
    nameDocs.push({ id: String(index), fields: { path: pathTerms(file.path), defs } });
    const chunks = countTermsByChunk(file.text, options.fileShare < 1 ? options.chunkLines : Infinity);
    textDocs.push({ id: String(index), fields: countFields(mergeCounts(chunks)) });
    if (chunks.length > 2) chunks.forEach((counts, c) => textDocs.push({ id: `${index}:${c}`, fields: countFields(counts) }));
  });
  const main = mainExtensions(files.map((file) => ({ path: file.path, size: file.text.length })));
  const textEngine = buildEngine(textDocs, COUNT_WEIGHTS, options);
  const nameEngine = buildEngine(nameDocs, { path: options.pathWeight, defs: options.defsWeight }, options);

  return {
    rank(query, top) {
      const text = queryText(query);
      if (text === "") return [];
      const whole = new Map<number, number>();
      const best = new Map<number, number>();
      for (const [id, score] of search(textEngine, text)) {
        const colon = id.indexOf(":");
        if (colon === -1) whole.set(Number(id), score);
        else best.set(Number(id.slice(0, colon)), Math.max(best.get(Number(id.slice(0, colon))) ?? 0, score));
      }
      const names = search(nameEngine, text);
      // Only files sharing a term with the query can score; the rest are never looked at.
      const hits = new Set<number>([...whole.keys(), ...best.keys(), ...[...names.keys()].map(Number)]);
      const ranked: RankedFile[] = [...hits].map((index) => {
        const file = files[index]!;
        const wholeScore = whole.get(index) ?? 0;
        const textScore = (1 - options.fileShare) * (best.get(index) ?? wholeScore) + options.fileShare * wholeScore;
        const bm25Score = textScore + options.namesShare * (names.get(String(index)) ?? 0);
        const boost = 1 + options.mentionBoost * mentionStrength(file.path, query.mentions);
        return { path: file.path, score: Math.round(bm25Score * boost * pathPrior(file.path, main) * 1000) / 1000 };
      });
      return ranked
        .filter((file) => file.score > 0)
        .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .slice(0, top);
    },
  };
}

/** Indexes the files and ranks them for one query (see {@link indexFiles}). */
export function rankFiles(files: RankInput[], query: WeightedQuery, top: number, options: RankOptions = DEFAULT_RANK_OPTIONS): RankedFile[] {
  return indexFiles(files, options).rank(query, top);
}
