/** A line range the Developer chose: 1-based, inclusive. */
export interface LineRange {
  start: number;
  end: number;
}

/**
 * Checks the Developer's line ranges against a file of `lineCount` lines before any code is written
 * for them: at least one, each inside the file, none overlapping. Returns them sorted, or a message
 * precise enough for the model to fix its answer.
 */
export function checkRanges<T extends LineRange>(ranges: T[], lineCount: number): { ok: true; ranges: T[] } | { ok: false; error: string } {
  if (ranges.length === 0) {
    return { ok: false, error: "you gave no line range, so nothing would change; name the lines that must change to do your task" };
  }
  for (const r of ranges) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 1 || r.end < r.start) {
      return { ok: false, error: `range ${r.start}-${r.end} is not a valid range; use whole line numbers with 1 <= start <= end` };
    }
    if (r.end > lineCount) {
      return { ok: false, error: `range ${r.start}-${r.end} is outside the file, which has ${lineCount} line${lineCount === 1 ? "" : "s"}` };
    }
  }
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    if (b.start <= a.end) {
      return { ok: false, error: `ranges ${a.start}-${a.end} and ${b.start}-${b.end} overlap; merge them into one range or make them disjoint` };
    }
  }
  return { ok: true, ranges: sorted };
}
