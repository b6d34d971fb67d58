import { readPatchHunks } from "./read-patch-hunks.js";

/** A range of old line numbers of one file, 1-based and inclusive. */
interface FileRange {
  path: string;
  start: number;
  end: number;
}

/**
 * MAGIS's line-locating coverage ratio (its Eq. 1): the old lines the gold patch changes that the generated patch also
 * changes, over all the old lines the gold patch changes, in [0, 1]; null when the gold patch changes no line. Both
 * patches are against the same base, so old line numbers compare. Each change (a run of `-`/`+` lines) is the range
 * of old lines it replaces; a change that only adds lines is the one old line it follows (line 1 at the top of a
 * file), so an added-only gold hunk counts as one line, covered by a generated change at the same place.
 */
export function lineCoverage(gold: string, generated: string): number | null {
  const goldRanges = merge(rangesOf(gold));
  const total = goldRanges.reduce((sum, r) => sum + r.end - r.start + 1, 0);
  if (total === 0) return null;
  // Merged, the generated ranges never overlap each other, so no gold line is counted twice.
  const mine = merge(rangesOf(generated));
  let covered = 0;
  for (const g of goldRanges) {
    for (const m of mine) {
      if (m.path === g.path) covered += Math.max(0, Math.min(g.end, m.end) - Math.max(g.start, m.start) + 1);
    }
  }
  return covered / total;
}

function rangesOf(patch: string): FileRange[] {
  return readPatchHunks(patch).flatMap((file) =>
    file.changes.map((c) => (c.removed.length > 0 ? { path: file.path, start: c.start, end: c.end } : { path: file.path, start: Math.max(1, c.start), end: Math.max(1, c.start) })),
  );
}

/** The ranges with those that overlap or touch within one file joined, sorted by file and line. */
function merge(ranges: FileRange[]): FileRange[] {
  const sorted = [...ranges].sort((a, b) => (a.path === b.path ? a.start - b.start : a.path < b.path ? -1 : 1));
  const merged: FileRange[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.path === r.path && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}
