import { readPatchHunks, type PatchFile } from "./read-patch-hunks.js";

/**
 * One change of a patch in half-line positions of the old file: line k is position 2k, the gap after line k (where an
 * added-only change goes) is 2k + 1. A change that replaces lines a..b spans 2a..2b; one that only adds lines after
 * line k (0 at the top) is the single position 2k + 1.
 */
interface Change {
  path: string;
  from: number;
  to: number;
}

/**
 * MAGIS's line-locating coverage ratio (its Eq. 1): of what the gold patch changes — each old line it replaces, and
 * each gap where it only adds lines, counting one — the share the generated patch changes too, in [0, 1]; null when
 * the gold patch changes nothing. Both patches are against the same base, so old positions compare. A generated
 * replacement covers the lines it replaces and the gaps beside them (it may put the gold's added lines there); a
 * generated addition covers only a gold addition in the same gap, never a line it leaves as it was.
 */
export function lineCoverage(gold: string, generated: string): number | null {
  const { covered, total } = coveredLines(readPatchHunks(gold), readPatchHunks(generated));
  return total === 0 ? null : covered / total;
}

/** Eq. 1's counts for patches already read: the gold's changed positions, and how many of them `generated` changes too. */
export function coveredLines(gold: PatchFile[], generated: PatchFile[]): { covered: number; total: number } {
  const wanted = unitsOf(changesOf(gold));
  const mine = changesOf(generated);
  const covered = wanted.filter((unit) => mine.some((m) => m.path === unit.path && covers(m, unit.at)));
  return { covered: covered.length, total: wanted.length };
}

function covers(change: Change, at: number): boolean {
  const isLine = at % 2 === 0;
  if (change.from === change.to && change.from % 2 === 1) return at === change.from;
  return isLine ? change.from <= at && at <= change.to : change.from - 1 <= at && at <= change.to + 1;
}

function changesOf(files: PatchFile[]): Change[] {
  return files.flatMap((file) =>
    file.changes.map((c) =>
      c.removed.length > 0
        ? { path: file.path, from: 2 * c.start, to: 2 * c.end }
        : { path: file.path, from: 2 * Math.max(0, c.start) + 1, to: 2 * Math.max(0, c.start) + 1 },
    ),
  );
}

/** Every position a gold patch changes, each once: its replaced lines, and the gaps where it only adds. */
function unitsOf(changes: Change[]): { path: string; at: number }[] {
  const seen = new Set<string>();
  const units: { path: string; at: number }[] = [];
  for (const c of changes) {
    for (let at = c.from; at <= c.to; at += 2) {
      const key = `${c.path}\0${at}`;
      if (seen.has(key)) continue;
      seen.add(key);
      units.push({ path: c.path, at });
    }
  }
  return units;
}
