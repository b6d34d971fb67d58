import { listCandidates, listWrittenFiles, type CandidateSet, type ListOptions } from "./list-candidates.js";
import type { WrittenTree } from "../../git/write-worktree.js";
import { DEFAULT_RANK_OPTIONS, indexFiles, type FileIndex, type RankOptions } from "./rank-files.js";
import type { JudgeFile } from "./read-candidate.js";
import type { TermMemory } from "./remember-terms.js";
import type { CommitRecord } from "../../git/commit-history.js";

/** A checkout's candidate files and the index built over them. */
export interface RepositoryIndex extends FileIndex {
  candidates: CandidateSet;
}

/**
 * Lists a checkout's candidate files and indexes them, tokenizing only the blobs the store's cache and its memo have
 * not seen (every file, without `terms`), with the repository's recent commits when given: what a job does
 * before its first query. With `storeLater`, the new blobs' terms are stored when the caller calls `remember`; with
 * `written`, the files a clone just wrote into `root`, those are listed instead of the work tree read back, each
 * decided on by `judge` (see listWrittenFiles).
 */
export async function indexRepository(
  root: string,
  list: ListOptions,
  {
    terms = null,
    options = DEFAULT_RANK_OPTIONS,
    history = [],
    storeLater = false,
    written,
    judge,
  }: { terms?: TermMemory | null; options?: RankOptions; history?: CommitRecord[]; storeLater?: boolean; written?: WrittenTree; judge?: JudgeFile } = {},
): Promise<RepositoryIndex> {
  const candidates = written ? await listWrittenFiles(written, list, judge) : await listCandidates(root, list);
  const index = await indexFiles(candidates.files, { ranking: options, terms, history, storeLater });
  return { candidates, stats: index.stats, rank: index.rank, remember: index.remember };
}
