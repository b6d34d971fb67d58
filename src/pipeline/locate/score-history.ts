import type { CommitRecord } from "../../git/commit-history.js";
import type { PastChange } from "../types.js";
import type { Pause } from "../../lib/slice-work.js";
import { Bm25Index, type Bm25Params } from "./bm25-index.js";
import { countTerms } from "./tokenize-code.js";

/** How many of the commits best matching an issue speak for the files they changed. */
const SIMILAR_COMMITS = 30;
/** A commit changing more candidate files than this (a rename, a reformat, a release) says little of any one of them. */
const MAX_FILES_PER_COMMIT = 10;

// Trailers name people and tools (Co-authored-by:, Signed-off-by:), not the change.
const TRAILER = /^[A-Za-z][\w-]*-by:[^\n]*$/gm;

/** Files a query's past commits point at. */
export interface HistoryIndex {
  /** How many commits the index holds: those that changed at least one and at most MAX_FILES_PER_COMMIT candidates. */
  commits: number;
  /**
   * The files the commits most like the query changed, each weighted by how like the query its commits are, the
   * strongest 1. A commit's weight is shared among its files by `prior`, so a fix's source file takes more of it
   * than the test and the change-log entry written beside it.
   */
  score(terms: ReadonlyArray<readonly [string, number]>, prior: (path: string) => number, pause: Pause): Promise<Map<string, HistoryWeight>>;
}

/** What the past commits most like a query lend one file: a weight (the strongest file's is 1), and the commit that lent most. */
export interface HistoryWeight {
  weight: number;
  commit: PastChange;
}

/**
 * Indexes the messages of past commits for BM25, each remembering the candidate files it changed: the files a
 * repository's earlier changes of the same kind touched are where this one most likely goes (bug reports like an
 * earlier one are fixed in its files, as BugLocator found). `isCandidate` says which paths can be ranked. Awaits
 * `pause` between commits: 5,000 of them take about 0.1 s to tokenize, too long to hold a server's event loop.
 */
export async function indexHistory(commits: CommitRecord[], isCandidate: (path: string) => boolean, params: Bm25Params, pause: Pause): Promise<HistoryIndex> {
  const index = new Bm25Index(Infinity, true);
  const changed: string[][] = [];
  const times: number[] = [];
  const named: PastChange[] = [];
  for (const commit of commits) {
    const files = [...new Set(commit.files)].filter(isCandidate);
    if (files.length > 0 && files.length <= MAX_FILES_PER_COMMIT) {
      index.add(changed.length, countTerms(commit.message.replace(TRAILER, " ")));
      changed.push(files);
      times.push(commit.time);
      named.push({ oid: commit.oid, subject: commit.message.split("\n", 1)[0]!.trim() });
    }
    await pause();
  }
  index.finish(params);
  return {
    commits: changed.length,
    async score(terms, prior, pause) {
      const weights = new Map<string, HistoryWeight>();
      if (changed.length === 0) return weights;
      const scores = new Map<number, number>();
      await index.search(terms, scores, pause);
      // The newer of two equally good commits first: it describes the code as it is now.
      const similar = [...scores].sort((a, b) => b[1] - a[1] || times[b[0]]! - times[a[0]]! || a[0] - b[0]).slice(0, SIMILAR_COMMITS);
      for (const [doc, score] of similar) {
        const files = changed[doc]!;
        const total = files.reduce((sum, file) => sum + prior(file), 0);
        if (total === 0) continue;
        for (const file of files) {
          const lent = (score * prior(file)) / total;
          const known = weights.get(file);
          // Commits come best first: the first to lend a file weight lent it the most.
          if (known) known.weight += lent;
          else weights.set(file, { weight: lent, commit: named[doc]! });
        }
      }
      let strongest = 0;
      for (const { weight } of weights.values()) strongest = Math.max(strongest, weight);
      if (strongest > 0) for (const entry of weights.values()) entry.weight /= strongest;
      return weights;
    },
  };
}
