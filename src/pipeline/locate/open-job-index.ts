import { keepWrittenFiles } from "../../git/keep-written-files.js";
import type { CloneSink, WrittenTree } from "../../git/write-worktree.js";
import { sharedTermCounter, type TermCounter } from "./count-terms.js";
import type { ListOptions } from "./list-candidates.js";
import { primeTerms } from "./prime-terms.js";
import { judgeCandidate, judgeOnce, type JudgeFile } from "./read-candidate.js";
import type { TermMemory } from "./remember-terms.js";

/** What a job's index hands the Custodian once: the files the clone wrote, its folders, and the verdicts on them so far. */
export type WrittenFiles = WrittenTree & { judge?: JudgeFile };

/**
 * The Custodian's index of one job: the job makes it, hands it to the clone as the sink of the files it writes (see
 * CloneSink), and to the pipeline in its context (StageContext.index). While the clone writes, it keeps the files for
 * the first listing, decides once on each (for priming and listing alike), and learns their terms into the memo (see
 * primeTerms); the Custodian then lists what it kept and indexes through the same terms.
 */
export interface JobIndex extends CloneSink {
  /** The store's index cache with the process's memo in front, or null: the job remembers nothing across jobs. */
  readonly terms: TermMemory | null;
  /** The files the clone wrote, handed once; undefined when none are at hand (no clone, past the bound, taken). */
  takeWritten(): WrittenFiles | undefined;
}

/** Judges without keeping verdicts: for the files of a work tree past the bound, which nobody lists from memory. */
const judgeEach: JudgeFile = (file, maxFileBytes) => judgeCandidate(file.path, file.bytes, maxFileBytes);

/** A job's index (see JobIndex) over `terms`, priming the files `list` would list; `counter` tokenizes them (default: the process's worker threads). */
export function openJobIndex({ terms, list, counter }: { terms: TermMemory | null; list: ListOptions; counter?: TermCounter }): JobIndex {
  const kept = keepWrittenFiles();
  // The verdicts live as long as the files they are on: handed over with them, dropped with them past the bound.
  let judge = judgeOnce();
  const prime = terms ? primeTerms(terms, list, (file, maxFileBytes) => judge(file, maxFileBytes), counter ?? sharedTermCounter()) : undefined;
  return {
    terms,
    start: () => {
      kept.start();
      judge = judgeOnce();
    },
    add: async (files) => {
      await kept.add(files);
      if (!kept.keeping) judge = judgeEach;
      await prime?.(files);
    },
    done: (folders) => kept.done(folders),
    takeWritten: () => {
      const written = kept.take();
      const verdicts = judge;
      judge = judgeEach;
      return written && { ...written, judge: verdicts };
    },
  };
}
