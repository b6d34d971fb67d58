/**
 * Similarity of two strings as 1 - editDistance / longerLength, or 0 when it is surely below `min`.
 * The distance is computed in a band of width (1 - min) * longerLength, so a high `min` is cheap.
 */
export function similarity(a: string, b: string, min = 0): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  const limit = Math.floor((1 - min) * longer);
  if (Math.abs(a.length - b.length) > limit) return 0;
  const distance = boundedDistance(a, b, limit);
  return distance > limit ? 0 : 1 - distance / longer;
}

/** Levenshtein distance of a and b, or limit + 1 once it is known to exceed limit. */
function boundedDistance(a: string, b: string, limit: number): number {
  const n = b.length;
  const big = limit + 1;
  let prev = new Array<number>(n + 1);
  let curr = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j <= limit ? j : big;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(n, i + limit);
    curr.fill(big);
    curr[0] = i <= limit ? i : big;
    let rowMin = curr[0]!;
    const ca = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(prev[j - 1]! + cost, prev[j]! + 1, curr[j - 1]! + 1);
      curr[j] = value > big ? big : value;
      if (curr[j]! < rowMin) rowMin = curr[j]!;
    }
    if (rowMin > limit) return big;
    [prev, curr] = [curr, prev];
  }
  return prev[n]!;
}
