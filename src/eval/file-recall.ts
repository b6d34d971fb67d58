/** MAGIS Eq. 4 as a fraction: the share of the gold files among `found` (0 when there are no gold files). */
export function fileRecall(found: readonly string[], gold: readonly string[]): number {
  if (gold.length === 0) return 0;
  const set = new Set(found);
  return gold.filter((file) => set.has(file)).length / gold.length;
}
