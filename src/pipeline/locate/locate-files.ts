import type { MemoryStore } from "../../store/store.js";
import type { CommitRecord } from "../../git/commit-history.js";
import { StageError } from "../errors.js";
import { mapBounded } from "../../lib/map-bounded.js";
import { showIssue } from "../format-issue.js";
import type { IssueText, LocatedFile, ShownIssue, StageContext } from "../types.js";
import { buildQuery } from "./build-query.js";
import { judgeRelevance } from "./judge-relevance.js";
import { indexRepository, type RepositoryIndex } from "./index-repository.js";
import type { WrittenFiles } from "./open-job-index.js";
import { TermMemo, type TermMemory } from "./remember-terms.js";
import type { CandidateSet } from "./list-candidates.js";
import { summarizeCandidate } from "./summarize-candidate.js";

/** Options of {@link locateFiles}. */
export interface LocateOptions {
  /** Rank only: no summaries, no relevance check, no model. */
  bm25Only?: boolean;
  /** How many files BM25 keeps (default: config top_k). */
  top?: number;
  /** Most candidates summarized at the same time (default 4). */
  concurrency?: number;
}

function describeSkipped(candidates: CandidateSet): string {
  const parts = Object.entries(candidates.skipped)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason}`);
  return parts.length > 0 ? ` (left out: ${parts.join(", ")})` : "";
}

/**
 * The Repository Custodian (MAGIS Algorithm 1): ranks the repository's files against the issue with
 * BM25 (and what its recent commits like the issue changed), keeps the top k, summarizes each through the evolution memory, and keeps those the model
 * judges relevant, in BM25 order. Throws a StageError when nothing can be ranked or everything is dropped. The issue comes
 * formatted from a flow that formatted it for all its stages (resolveIssue), or as text from a door that only locates.
 */
export async function locateFiles(
  ctx: StageContext,
  issue: IssueText | ShownIssue,
  memory: MemoryStore | null,
  options: LocateOptions = {},
): Promise<LocatedFile[]> {
  // The index cache lives in the memory's store: a job tokenizes only the files no earlier job saw.
  // The history only sharpens the ranking: a source that fails costs that signal, never the stage.
  const history = ctx.history && ctx.config.history_months > 0 ? await ctx.history().catch((): CommitRecord[] => []) : [];
  const list = { exclude: ctx.config.exclude, maxFileBytes: ctx.config.max_file_bytes };
  // The terms this job tokenized are stored once the model has the candidates to read, not before its first request.
  // The files the clone wrote are not held past the listing (see listedFrom).
  const index = await indexRepository(ctx.root, list, { terms: termsOf(ctx, memory), history, storeLater: true, ...listedFrom(ctx) });
  let located: LocatedFile[];
  try {
    located = await rankAndJudge(ctx, issue, { index, memory, options });
  } catch (error) {
    // The stage's own failure is the one to report, whatever storing the terms meets.
    await index.remember().catch(() => {});
    throw error;
  }
  await index.remember();
  return located;
}

/** What the Custodian lists: the files the clone wrote when the job's index hands them over, else the work tree (nothing). */
function listedFrom(ctx: StageContext): { written?: WrittenFiles; judge?: WrittenFiles["judge"] } {
  const written = ctx.index?.takeWritten();
  return written ? { written, judge: written.judge } : {};
}

/** The terms the job indexes through: its index's, else (a caller without one) the memory's cache with a memo of this call's own. */
function termsOf(ctx: StageContext, memory: MemoryStore | null): TermMemory | null {
  if (ctx.index) return ctx.index.terms;
  return memory ? { cache: memory.index, memo: new TermMemo() } : null;
}

/** What rankAndJudge works on besides the issue: the repository's index, the evolution memory, and the caller's options. */
interface RankAndJudgeInput {
  index: RepositoryIndex;
  /** The memory the candidates' summaries go through (null: summarized afresh). */
  memory: MemoryStore | null;
  options: LocateOptions;
}

/** The rest of {@link locateFiles}, on the repository's index: the ranking, then the summaries and the model's judgement. */
async function rankAndJudge(ctx: StageContext, issue: IssueText | ShownIssue, { index, memory, options }: RankAndJudgeInput): Promise<LocatedFile[]> {
  const { candidates } = index;
  if (candidates.files.length === 0) {
    throw new StageError(
      "locate",
      `the repository has no text file the Custodian can read${describeSkipped(candidates)}`,
      "Check that the repository has source files, and that `exclude` and `max_file_bytes` in .github/magis.yml do not leave them all out.",
    );
  }
  const query = buildQuery(issue);
  if (query.terms.size === 0) {
    throw new StageError(
      "locate",
      "the issue's title, description and hints contain no words to search the code for",
      "Describe the problem in the issue (what happens, what should happen, names of functions or files), then try again.",
    );
  }
  const ranked = await index.rank(query, options.top ?? ctx.config.top_k);
  if (ranked.length === 0) {
    throw new StageError(
      "locate",
      `none of the ${candidates.files.length} files shares a word with the issue`,
      "Name the files, functions or error messages involved in the issue, or add them with `/magis retry <hint>`.",
    );
  }
  if (options.bm25Only) {
    ctx.onProgress({ stage: "located", files: ranked });
    return ranked;
  }

  const shown = "shown" in issue ? issue : showIssue(issue);
  const byPath = new Map(candidates.files.map((file) => [file.path, file]));
  const summarizing = mapBounded(ranked, options.concurrency ?? 4, async (file) => (await summarizeCandidate(ctx, memory, byPath.get(file.path)!)).summary);
  // Started once the first requests are on their way; a failure to store surfaces from locateFiles, after the judging.
  const storing = index.remember();
  const [summaries] = await Promise.all([summarizing, storing.catch(() => {})]);
  // One call judges the files together: the issue is sent once, not once a file.
  const verdicts = await judgeRelevance(
    ctx,
    shown,
    ranked.map((file, i) => ({ path: file.path, summary: summaries[i]! })),
  );
  const located = ranked.map((file, i): LocatedFile => ({ ...file, summary: summaries[i]!, kept: verdicts[i]!.relevant, reason: verdicts[i]!.reason }));
  ctx.onProgress({ stage: "located", files: located });
  if (!located.some((file) => file.kept)) {
    throw new StageError(
      "locate",
      `the Custodian judged none of the ${located.length} best-matching files relevant to the issue (${located.map((f) => f.path).join(", ")})`,
      "Name the file or function to change in the issue, or comment `/magis retry <which file or function>`; a larger `top_k` in .github/magis.yml also widens the search.",
    );
  }
  return located;
}
