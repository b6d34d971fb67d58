import bm25 from "wink-bm25-text-search";
import type { RankedFile } from "../types.js";
import type { WeightedQuery } from "./build-query.js";
import { extractDefinitions } from "./extract-definitions.js";
import { mentionStrength, pathPrior } from "./score-path.js";
import { tokenizeChunks, tokenizeCode } from "./tokenize-code.js";

/** A file to rank: its repository-relative path and its text. */
export interface RankInput {
  path: string;
  text: string;
}

/** Knobs of the ranking; the defaults are what the localization benchmark supports. */
export interface RankOptions {
  /** Lines per chunk: a file scores as its best chunk, so a long file does not lose merely by length. */
  chunkLines: number;
  /** Weight of the path field (its words count this many times). */
  pathWeight: number;
  /** Weight of the field of names the chunk defines. */
  defsWeight: number;
  /** Share of the whole file's score added to its best chunk's. */
  fileShare: number;
  /** How much one unit of mention strength (see mentionStrength) multiplies a file's score. */
  mentionBoost: number;
  k1: number;
  b: number;
}

export const DEFAULT_RANK_OPTIONS: RankOptions = {
  chunkLines: 120,
  pathWeight: 3,
  defsWeight: 2,
  fileShare: 0.5,
  mentionBoost: 0.2,
  k1: 1.2,
  b: 0.75,
};

// Query weights are fractional; wink adds a term once per occurrence in the query text, so a weight
// becomes a number of repetitions at this resolution.
const REPEATS_PER_UNIT = 4;
const PADDING = "\u0000pad";

function splitWords(text: string): string[] {
  return text.split(" ").filter((t) => t !== "");
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
  path: string;
  defs: string;
  body: string;
}

/** Builds one BM25 index over pre-tokenized documents (space-separated terms) and scores them for the query. */
function scoreDocuments(docs: Doc[], text: string, options: RankOptions): Map<string, number> {
  const engine = bm25();
  engine.defineConfig({
    fldWeights: { path: options.pathWeight, defs: options.defsWeight, body: 1 },
    bm25Params: { k1: options.k1, b: options.b, k: 1 },
  });
  // Everything arrives tokenized (files once per file, not once per chunk), so wink only splits on spaces.
  engine.definePrepTasks([splitWords]);
  for (const doc of docs) engine.addDoc({ path: doc.path, defs: doc.defs, body: doc.body }, doc.id);
  // wink refuses to consolidate fewer than three documents; empty ones leave the others' order unchanged.
  for (let i = docs.length; i < 3; i++) engine.addDoc({ path: "", defs: "", body: "" }, `${PADDING}${i}`);
  engine.consolidate();
  const scores = new Map<string, number>();
  for (const [id, score] of engine.search(text, docs.length + 3)) {
    if (!id.startsWith(PADDING)) scores.set(id, score / REPEATS_PER_UNIT);
  }
  return scores;
}

/**
 * Ranks files for a query with BM25 (wink-bm25-text-search) over code-tokenized chunks with the path
 * and the defined names as their own weighted fields. A file scores as its best chunk plus a share of
 * its whole-file score, times a boost when the issue names the file and a prior that tests and docs
 * are rarely what a fix changes. Returns the top `top` files, best first, ties by path.
 */
export function rankFiles(
  files: RankInput[],
  query: WeightedQuery,
  top: number,
  options: RankOptions = DEFAULT_RANK_OPTIONS,
): RankedFile[] {
  if (files.length === 0) return [];
  const text = queryText(query);
  if (text === "") return [];
  const chunkDocs: Doc[] = [];
  const fileDocs: Doc[] = [];
  files.forEach((file, index) => {
    const path = tokenizeCode(file.path).join(" ");
    const defs = tokenizeCode(extractDefinitions(file.text).join(" ")).join(" ");
    // Half-size pieces, paired into chunks that overlap by half, so a function straddling a boundary is whole in one.
    const halves = tokenizeChunks(file.text, Math.max(1, Math.floor(options.chunkLines / 2)));
    if (options.fileShare < 1) {
      const count = Math.max(1, halves.length - 1);
      for (let c = 0; c < count; c++) {
        const body = c + 1 < halves.length ? `${halves[c]!.join(" ")} ${halves[c + 1]!.join(" ")}` : halves[c]!.join(" ");
        chunkDocs.push({ id: `${index}:${c}`, path, defs, body });
      }
    }
    if (options.fileShare > 0) fileDocs.push({ id: String(index), path, defs, body: halves.map((h) => h.join(" ")).join(" ") });
  });
  const best = new Map<number, number>();
  for (const [id, score] of chunkDocs.length > 0 ? scoreDocuments(chunkDocs, text, options) : []) {
    const index = Number(id.slice(0, id.indexOf(":")));
    best.set(index, Math.max(best.get(index) ?? 0, score));
  }
  const whole = fileDocs.length > 0 ? scoreDocuments(fileDocs, text, options) : new Map<string, number>();
  const ranked: RankedFile[] = files.map((file, index) => {
    const bm25Score = (1 - options.fileShare) * (best.get(index) ?? 0) + options.fileShare * (whole.get(String(index)) ?? 0);
    const boost = 1 + options.mentionBoost * mentionStrength(file.path, query.mentions);
    return { path: file.path, score: Math.round(bm25Score * boost * pathPrior(file.path) * 1000) / 1000 };
  });
  return ranked
    .filter((file) => file.score > 0)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, top);
}
