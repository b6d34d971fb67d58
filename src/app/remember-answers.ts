/** Most answers kept at once; past it the oldest goes. */
const MAX_KEPT = 10_000;

/** Asks once per key within the time answers are kept (see rememberAnswers). */
export type Remembered = <T>(key: string, ask: () => Promise<T>) => Promise<T>;

/**
 * A short memory of GitHub's answers about viewers (their permission, a repository's visibility), so that a page's
 * live updates and its reloads ask once a minute, not once a request. An answer is kept for `cacheMs`; a failed question
 * is not kept, and its error reaches the caller.
 */
export function rememberAnswers(options: { cacheMs: number; now: () => number }): Remembered {
  const { cacheMs, now } = options;
  const kept = new Map<string, { until: number; answer: Promise<unknown> }>();
  return <T>(key: string, ask: () => Promise<T>): Promise<T> => {
    const hit = kept.get(key);
    if (hit && hit.until > now()) return hit.answer as Promise<T>;
    kept.delete(key);
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    const answer = ask();
    kept.set(key, { until: now() + cacheMs, answer });
    answer.catch(() => kept.get(key)?.answer === answer && kept.delete(key));
    return answer;
  };
}
