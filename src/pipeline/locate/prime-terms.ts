import type { ClonedFile } from "../../git/write-worktree.js";
import { sharedTermCounter, type TermCounter } from "./count-terms.js";
import { listedPath, type ListOptions } from "./list-candidates.js";
import type { RankInput } from "./prepare-document.js";
import { judgeCandidate, type JudgeFile } from "./read-candidate.js";
import { parseTerms, readQuietly, termsKey, type TermMemory } from "./remember-terms.js";

/**
 * Learns the terms of a clone's files while the clone writes them, so that indexing the checkout afterwards finds
 * every file in the memo (see TermMemory): the candidates (see listCandidates) the store already knows are read
 * from it, one query per batch, and the others tokenized. On a disk where writing thousands of files keeps the process
 * waiting, the tokenizing fills that wait; `counter` tokenizes on a worker thread (see TermCounter), so that the
 * clone's own thread goes on inflating and writing meanwhile. The terms are written to the store by the job's index,
 * not here. It primes at most three quarters of the memo's bound. `judge` decides on each file (the job's index
 * decides once for priming and listing alike, see openJobIndex).
 */
export function primeTerms(
  { cache, memo }: TermMemory,
  list: ListOptions,
  judge: JudgeFile = (file, maxFileBytes) => judgeCandidate(file.path, file.bytes, maxFileBytes),
  counter: TermCounter = sharedTermCounter(),
): (files: ClonedFile[]) => Promise<void> {
  const listed = listedPath(list);
  // Past three quarters of the memo, a repository would evict its own first files before the index reads them:
  // the rest are left to the index, which tokenizes what it does not find.
  let primed = 0;
  const full = () => primed > memo.maxBytes * 0.75;
  return async (files) => {
    if (full()) return;
    const wanted = files.filter((file) => listed(file.path)).map((file) => ({ file, key: termsKey(file.path, file.oid) }));
    const unknown = wanted.filter(({ key }) => !memo.has(key));
    if (unknown.length === 0) return;
    const stored = await readQuietly(() => cache.readTerms(unknown.map(({ key }) => key)), new Map<string, string>());
    const toCount: Array<{ key: string; file: RankInput }> = [];
    for (const { file, key } of unknown) {
      const json = stored.get(key);
      if (full()) return;
      if (json !== undefined) {
        primed += memo.set(key, parseTerms(json), true);
        continue;
      }
      const verdict = judge(file, list.maxFileBytes);
      if (!("skip" in verdict)) toCount.push({ key, file: verdict.file });
    }
    const counted = await counter.count(toCount.map(({ file }) => file));
    for (const [i, { key }] of toCount.entries()) {
      if (full()) return;
      primed += memo.set(key, counted[i]!, false);
    }
  };
}
