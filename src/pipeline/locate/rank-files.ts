import type { PastChange, RankedFile } from "../types.js";
import { Bm25Index } from "./bm25-index.js";
import type { WeightedQuery } from "./build-query.js";
import { prepareFile, type RankInput } from "./prepare-document.js";
import { rememberedTerms, rememberedDefinitions, type TermMemory } from "./remember-terms.js";
import { importedFiles, indexModules } from "./resolve-imports.js";
import { scoreDefinitions } from "./score-definitions.js";
import { indexHistory } from "./score-history.js";
import type { CommitRecord } from "../../git/commit-history.js";
import { mainExtensions, mentionScorer, namedByTitle, pathPrior, pathShape } from "./score-path.js";
import { sliceWork, type Pause } from "../../lib/slice-work.js";

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
  /** How much one unit of definition score (see scoreDefinitions) multiplies a file's score. */
  definitionBoost: number;
  /** How much a file the title names by its name alone (see namedByTitle) has its score multiplied by, less 1. */
  titleNameBoost: number;
  /** How much a file the best-ranked files import is raised (see raiseImported), per best file importing it. */
  importBoost: number;
  /** What the past commits most like the issue add to the files they changed (see indexHistory), as a share of the best file's score. */
  historyBoost: number;
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
  definitionBoost: 0.5,
  titleNameBoost: 0.3,
  importBoost: 0.1,
  historyBoost: 0.1,
  k1: 1.2,
  b: 0.75,
};

// A term's count in a file is capped here: BM25 has saturated long before, and the cap keeps the
// figures of the ranking the benchmarks measured (wink's count fields summed to at most 127).
const LARGEST_COUNT = 127;

/** The names document of a file: its path's terms counting `pathWeight` times each, its defined names `defsWeight` times. */
function namesDocument(names: { path: string[]; defs: string[] }, options: RankOptions): Map<string, number> {
  const frequencies = new Map<string, number>();
  for (const term of names.path) frequencies.set(term, (frequencies.get(term) ?? 0) + options.pathWeight);
  for (const term of names.defs) frequencies.set(term, (frequencies.get(term) ?? 0) + options.defsWeight);
  return frequencies;
}

/** The query's terms with their weights, counted at a resolution of halves (as when a weight was a number of repetitions of the term), grouped by weight. */
function weightedTerms(query: WeightedQuery): Array<[string, number]> {
  const groups = new Map<number, string[]>();
  for (const [term, weight] of query.terms) {
    const rounded = Math.max(1, Math.round(weight * 2)) / 2;
    const group = groups.get(rounded);
    if (group) group.push(term);
    else groups.set(rounded, [term]);
  }
  return [...groups].flatMap(([weight, terms]) => terms.map((term): [string, number] => [term, weight]));
}

/** Scores of every document sharing a term with the query. */
async function search(index: Bm25Index, terms: Array<[string, number]>, pause: Pause): Promise<Map<number, number>> {
  const scores = new Map<number, number>();
  await index.search(terms, scores, pause);
  return scores;
}

/** Files whose imports raise what they import: the best few, where the issue most likely is. */
const IMPORT_SEEDS = 3;

/** A score rounded to a thousandth, as ranked files carry it. */
function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** Files scored between two pauses of a ranking. */
const FILES_PER_PAUSE = 256;

/**
 * How many of the sorted files raiseImported needs to see to give the best `top`: the seeds, and every
 * file that could still reach the `top`-th file's score, which only grows. A file gains at most a factor
 * 1 + `boost` × IMPORT_SEEDS; a thousandth is allowed for the rounding of raised scores.
 */
function reachable(sorted: RankedFile[], top: number, boost: number): number {
  let count = Math.max(top, IMPORT_SEEDS);
  if (sorted.length <= count) return sorted.length;
  const floor = (sorted[Math.max(0, top - 1)]!.score - 0.001) / (1 + boost * IMPORT_SEEDS);
  while (count < sorted.length && sorted[count]!.score >= floor) count++;
  return count;
}

function byScore(a: RankedFile, b: RankedFile): number {
  return b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * Raises the files the best-ranked ones import: the fix is often one call deeper than the code the
 * issue's words find (a `Dataset` method calling into `Variable`). Each file imported by one of the
 * best IMPORT_SEEDS files has its score multiplied by 1 + `boost` × the importer's score relative to
 * the best, summed over its importers: a nudge among files the words already rank near the
 * top, not a way in for files that share none of them. `ranked` is sorted best first, and so is the result.
 */
function raiseImported(ranked: RankedFile[], importsOf: (path: string) => Set<string>, boost: number): RankedFile[] {
  if (boost === 0 || ranked.length === 0) return ranked;
  const best = ranked[0]!.score;
  const weights = new Map<string, number>();
  for (const seed of ranked.slice(0, IMPORT_SEEDS)) {
    for (const target of importsOf(seed.path)) weights.set(target, (weights.get(target) ?? 0) + seed.score / best);
  }
  if (weights.size === 0) return ranked;
  return ranked
    .map((file) => {
      const weight = weights.get(file.path);
      return weight === undefined ? file : { ...file, score: roundScore(file.score * (1 + boost * weight)) };
    })
    .sort(byScore);
}

/** A built index of a repository's files; build once per run, query as often as needed. */
export interface FileIndex {
  /** The files best matching the query, best first, ties by path; files sharing no term are left out. */
  rank(query: WeightedQuery, top: number): Promise<RankedFile[]>;
  /** How many files were indexed, how many were tokenized (the rest came from the cache), how many parsed for definitions so far. */
  stats: { files: number; tokenized: number; parsed: number };
  /**
   * Stores the terms of the files this index tokenized in the cache, for the next job; once, however often called.
   * indexFiles has done it before returning unless asked to leave it to the caller (`storeLater`).
   */
  remember(): Promise<void>;
}

/** How indexFiles ranks, paces and remembers its work, and the history it weighs; each has a default. */
export interface IndexFilesOptions {
  /** The ranking's knobs (default DEFAULT_RANK_OPTIONS). */
  ranking?: RankOptions;
  /** Awaited between files, documents and searches (default sliceWork()). */
  pause?: Pause;
  /** Where blobs' terms and definitions are remembered between jobs, with the process's memo (default null: none). */
  terms?: TermMemory | null;
  /** The repository's recent commits: the files that commits like the issue changed gain (default none). */
  history?: CommitRecord[];
  /** Leave storing the new blobs' terms to the caller's `remember` (default false: stored before returning). */
  storeLater?: boolean;
}

/** What rankFiles takes besides the files, the query and how many to keep. */
export type RankFilesOptions = Pick<IndexFilesOptions, "ranking" | "history">;

/** A definition score is capped here: an issue pasting a whole module's names should not multiply its file without bound. */
const MAX_DEFINITION_SCORE = 4;
/** A name defined in more files than this is not looked up (`__init__`, `get`): it would cost many parses and weigh almost nothing. */
const MAX_DEFINERS = 10;
/** Most files parsed for one query. */
const MAX_PARSED = 100;

/** The files worth parsing for the query's symbols: those the fast pass says define a named symbol or its owner, strongest symbols first. */
function filesToParse(query: WeightedQuery, definedBy: Map<string, number[]>): number[] {
  const chosen = new Set<number>();
  for (const symbol of query.symbols) {
    for (const name of symbol.owner ? [symbol.name, symbol.owner] : [symbol.name]) {
      const files = definedBy.get(name);
      if (!files || files.length > MAX_DEFINERS) continue;
      for (const file of files) if (chosen.size < MAX_PARSED) chosen.add(file);
    }
  }
  return [...chosen];
}

/**
 * Indexes files for BM25 (see Bm25Index) as code-tokenized text, and separately their paths
 * and the names they define: in one index with the text those few terms would drown in the text's
 * saturated term frequencies, and scored on their own they keep a long file that defines what the
 * issue names from losing merely by its length. With fileShare < 1, files longer than two chunks
 * also score as their best chunk of lines. A file's score is multiplied by a boost when the issue
 * names it, by a boost when it defines a class, function or method the issue names in code (see
 * scoreDefinitions; the fast pass of extractDefinitions says which files may, and only those are
 * parsed with tree-sitter, at query time), by a boost when its title names it by its file name alone
 * (namedByTitle), and by a prior that tests, docs and settings are rarely what a fix changes (unless
 * the title is about the docs); then the files that the past commits most like the issue changed gain a share
 * of the best file's score (indexHistory), and the files the best few import are raised a little (raiseImported).
 * With the store's cache (and its memo, see TermMemory), only blobs it has not seen are tokenized and parsed, and the new blobs' terms are stored for the next
 * job: before returning, or with `storeLater` when the caller calls `remember` (a job, once its first model requests
 * are under way). Building and ranking await `pause` between files, documents and searches, so a server's event
 * loop is not held for seconds.
 */
export async function indexFiles(
  files: RankInput[],
  { ranking: options = DEFAULT_RANK_OPTIONS, pause = sliceWork(), terms: termMemory = null, history = [], storeLater = false }: IndexFilesOptions = {},
): Promise<FileIndex> {
  const stats = { files: files.length, tokenized: 0, parsed: 0 };
  if (files.length === 0) return { rank: async () => [], stats, remember: async () => {} };
  const chunkLines = options.fileShare < 1 ? options.chunkLines : Infinity;
  // Text documents: file i is document i; its chunks (fileShare < 1) follow all files, with their owner kept.
  const textIndex = new Bm25Index(LARGEST_COUNT);
  const nameIndex = new Bm25Index(Infinity, true);
  const chunkOwners: number[] = [];
  // Which files the fast pass says define each name, for the definitions looked up at query time.
  const definedBy = new Map<string, number[]>();
  const remembered = chunkLines === Infinity ? await rememberedTerms(files, termMemory, pause) : null;
  const remember = remembered?.remember ?? (async () => {});
  if (!storeLater) await remember();
  for (const [index, input] of files.entries()) {
    const file = remembered?.documents[index] ?? prepareFile(input, chunkLines);
    nameIndex.add(index, namesDocument(file.names, options));
    textIndex.add(index, file.text[0]!);
    for (const chunk of file.text.slice(1)) {
      textIndex.add(files.length + chunkOwners.length, chunk);
      chunkOwners.push(index);
    }
    for (const name of remembered?.defined[index] ?? []) {
      const definers = definedBy.get(name);
      if (definers) definers.push(index);
      else definedBy.set(name, [index]);
    }
    await pause();
  }
  stats.tokenized = remembered?.tokenized ?? files.length;
  const main = mainExtensions(files.map((file) => ({ path: file.path, size: file.text.length })));
  const priors = files.map((file) => pathPrior(file.path, main));
  // Differs only under the docs' folder, and only issues about the docs ask for it.
  let docsPriors: number[] | null = null;
  const shapes = files.map((file) => pathShape(file.path));
  const modules = indexModules(files.map((file) => file.path));
  const indexOfPath = new Map(files.map((file, index) => [file.path, index]));
  const past = history.length > 0 ? await indexHistory(history, (path) => indexOfPath.has(path), options, pause) : null;
  const importsOf = (path: string) => importedFiles(path, files[indexOfPath.get(path)!]!.text, modules);
  textIndex.finish(options);
  nameIndex.finish(options);

  return {
    stats,
    remember,
    async rank(query, top) {
      const terms = weightedTerms(query);
      if (terms.length === 0) return [];
      const whole = new Map<number, number>();
      const best = new Map<number, number>();
      for (const [doc, score] of await search(textIndex, terms, pause)) {
        if (doc < files.length) whole.set(doc, score);
        else best.set(chunkOwners[doc - files.length]!, Math.max(best.get(chunkOwners[doc - files.length]!) ?? 0, score));
      }
      const names = await search(nameIndex, terms, pause);
      // Only files sharing a term with the query can score; the rest are never looked at.
      const hits = new Set<number>([...whole.keys(), ...best.keys(), ...names.keys()]);
      const definitionScores = new Map<number, number>();
      const definers = (name: string) => definedBy.get(name)?.length ?? 1;
      for (const index of filesToParse(query, definedBy)) {
        const definitions = await rememberedDefinitions(files[index]!, remembered!.keys[index]!, {
          cache: termMemory?.cache ?? null,
          stats,
          store: remembered!.storeDefinitions,
        });
        definitionScores.set(index, scoreDefinitions(definitions, query.symbols, definers));
        await pause();
      }
      const scores = new Map<number, number>();
      const prior = query.aboutDocs ? (docsPriors ??= files.map((file) => pathPrior(file.path, main, true))) : priors;
      const mentionStrength = mentionScorer(query.mentions);
      let scored = 0;
      for (const index of hits) {
        const wholeScore = whole.get(index) ?? 0;
        const textScore = (1 - options.fileShare) * (best.get(index) ?? wholeScore) + options.fileShare * wholeScore;
        const bm25Score = textScore + options.namesShare * (names.get(index) ?? 0);
        const boost =
          (1 + options.mentionBoost * mentionStrength(shapes[index]!)) *
          (1 + options.definitionBoost * Math.min(MAX_DEFINITION_SCORE, definitionScores.get(index) ?? 0)) *
          (namedByTitle(shapes[index]!, query.titleWords) ? 1 + options.titleNameBoost : 1);
        scores.set(index, bm25Score * boost * prior[index]!);
        // With 200 files named in a long issue, matching them against every path takes a while too.
        if (++scored % FILES_PER_PAUSE === 0) await pause();
      }
      const pastChanges = new Map<number, PastChange>();
      if (past && options.historyBoost > 0) {
        let best = 0;
        for (const score of scores.values()) best = Math.max(best, score);
        const changed = await past.score(terms, (path) => prior[indexOfPath.get(path)!]!, pause);
        for (const [path, { weight, commit }] of changed) {
          const index = indexOfPath.get(path)!;
          scores.set(index, (scores.get(index) ?? 0) + options.historyBoost * best * weight * prior[index]!);
          pastChanges.set(index, commit);
        }
      }
      const ranked: RankedFile[] = [...scores].map(([index, score]) => {
        const pastChange = pastChanges.get(index);
        return { path: files[index]!.path, score: roundScore(score), ...(pastChange && { pastChange }) };
      });
      const sorted = ranked.filter((file) => file.score > 0).sort(byScore);
      return raiseImported(sorted.slice(0, reachable(sorted, top, options.importBoost)), importsOf, options.importBoost).slice(0, top);
    },
  };
}

/** Indexes the files and ranks them for one query (see {@link indexFiles}). */
export async function rankFiles(files: RankInput[], query: WeightedQuery, top: number, { ranking, history }: RankFilesOptions = {}): Promise<RankedFile[]> {
  return (await indexFiles(files, { ranking, history })).rank(query, top);
}
