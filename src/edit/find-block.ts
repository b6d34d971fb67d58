import { isElision, splitAtElisions } from "./elisions.js";
import { similarity } from "./similarity.js";
import type { MatchLevel } from "./types.js";

/**
 * Fuzzy matches must be at least this similar (1 - edit distance / length, whitespace collapsed), and
 * either half of their non-blank lines must be there unchanged or the similarity must reach
 * FUZZY_ALONE: short blocks of look-alike code (`add`/`sub`) differ by a few characters only.
 */
export const FUZZY_THRESHOLD = 0.9;
const FUZZY_ALONE = 0.95;
/** Fuzzy candidates this close to the best one count as equally good, which makes the match ambiguous. */
const FUZZY_TIE = 0.02;
/** How far (in lines) from the given range the anchor is first looked for. */
export const NEARBY_LINES = 15;
/** Line numbers off by at most this much single out the nearest of several identical places. */
const MAX_MISCOUNT = 3;

/** A half-open span of 0-based line indexes. */
export interface Span {
  start: number;
  end: number;
}

/** Where a block of lines was found; gaps are the file lines that elision markers stood for. */
export interface BlockMatch extends Span {
  level: MatchLevel;
  similarity: number;
  /** Per real pattern segment, the file span it matched (one segment unless elided). */
  segments: Span[];
  gaps: Span[];
}

/** The result of looking for a block: one place, several equally good places, or none. */
export type FindOutcome =
  { kind: "found"; match: BlockMatch; elided: boolean } | { kind: "ambiguous"; level: MatchLevel; candidates: BlockMatch[] } | { kind: "missing" };

/** Lines of one file prepared for repeated searches. */
export class SearchableFile {
  readonly exactKeys: string[];
  readonly looseKeys: string[];
  readonly fuzzyKeys: string[];
  constructor(readonly lines: string[]) {
    this.exactKeys = lines.map(exactKey);
    this.looseKeys = lines.map(looseKey);
    this.fuzzyKeys = lines.map(fuzzyKey);
  }
}

const exactKey = (line: string): string => line.trimEnd();
const looseKey = (line: string): string => line.replace(/\s+/g, "");
const fuzzyKey = (line: string): string => line.trim().replace(/\s+/g, " ");

/**
 * Find `pattern` (the model's `old` lines) in the file: within a miscount of `hint` (the given range)
 * exactly, then ignoring whitespace; the same within NEARBY_LINES of it; then — if allowed — anywhere in
 * the file; then fuzzily, nearby and anywhere. Elision markers in the pattern are tried after the literal text at the first two levels.
 */
export function findBlock(file: SearchableFile, pattern: string[], hint: Span | null, wholeFile: boolean): FindOutcome {
  const n = file.lines.length;
  const around = (lines: number): Span => ({ start: Math.max(0, hint!.start - lines), end: Math.min(n, hint!.end + lines) });
  const scopes: Span[] = hint ? [around(MAX_MISCOUNT), around(NEARBY_LINES)] : [];
  if (wholeFile || !hint) scopes.push({ start: 0, end: n });
  const segments = splitAtElisions(pattern);
  const elided = segments.length > 1;
  // Within a miscount of the given lines a whitespace-only difference beats an exact copy farther away.
  for (const scope of scopes) {
    for (const level of ["exact", "whitespace"] as const) {
      const keys = level === "exact" ? file.exactKeys : file.looseKeys;
      const toKey = level === "exact" ? exactKey : looseKey;
      let candidates = literalCandidates(keys, pattern.map(toKey), scope, level);
      let usedElision = false;
      if (candidates.length === 0 && elided) {
        candidates = elidedCandidates(
          keys,
          segments.map((s) => s.map(toKey)),
          scope,
          level,
        );
        usedElision = candidates.length > 0;
      }
      if (candidates.length > 0) return choose(candidates, hint, { level, tie: 0, elided: usedElision });
    }
  }
  for (const scope of scopes.slice(hint ? 1 : 0)) {
    const candidates = fuzzyCandidates(file, pattern, scope, FUZZY_THRESHOLD).filter((c) => trustworthy(file, pattern, c));
    if (candidates.length > 0) return choose(candidates, hint, { level: "fuzzy", tie: FUZZY_TIE, elided: false });
  }
  return { kind: "missing" };
}

/** The most similar place for a pattern that did not match, to show the model what is really there. */
export function closestBlock(file: SearchableFile, pattern: string[], hint: Span | null): BlockMatch | null {
  const real = pattern.filter((line) => fuzzyKey(line) !== "" && !isElision(line));
  const shared = new Map<number, number>();
  const n = file.lines.length;
  // Only windows that share a line with the pattern, or sit at the given range, are worth scoring.
  const index = new Map<string, number[]>();
  real.forEach((line, k) => {
    const key = looseKey(line);
    if (key.length >= 3) index.set(key, [...(index.get(key) ?? []), k]);
  });
  file.looseKeys.forEach((key, j) => {
    for (const k of index.get(key) ?? []) shared.set(j - k, (shared.get(j - k) ?? 0) + 1);
  });
  // Scoring is quadratic in the block's length, so only promising windows are scored: those sharing the
  // most lines with the pattern, and those whose first line resembles the pattern's first line.
  const starts = [...shared.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 100)
    .map(([s]) => s);
  const first = fuzzyKey(real[0] ?? "");
  const byFirstLine = file.fuzzyKeys.map((key, j) => [similarity(key, first, 0.5), j] as const).filter(([score]) => score > 0);
  starts.push(
    ...byFirstLine
      .sort((a, b) => b[0] - a[0])
      .slice(0, 20)
      .map(([, j]) => j),
  );
  if (hint) for (let s = hint.start - MAX_MISCOUNT; s <= hint.start + MAX_MISCOUNT; s++) starts.push(s);
  let best: BlockMatch | null = null;
  for (const start of new Set(starts)) {
    if (start < 0 || start >= n) continue;
    const scope = { start, end: start + 1 };
    for (const candidate of fuzzyCandidates(
      file,
      pattern.filter((line) => !isElision(line)),
      scope,
      0.3,
    )) {
      if (!best || candidate.similarity > best.similarity) best = candidate;
    }
  }
  return best;
}

function literalCandidates(keys: string[], wanted: string[], scope: Span, level: MatchLevel): BlockMatch[] {
  const found: BlockMatch[] = [];
  const m = wanted.length;
  for (let i = scope.start; i < scope.end && i + m <= keys.length; i++) {
    if (matchesAt(keys, wanted, i)) found.push({ start: i, end: i + m, level, similarity: 1, segments: [{ start: i, end: i + m }], gaps: [] });
  }
  return found;
}

function matchesAt(keys: string[], wanted: string[], at: number): boolean {
  for (let k = 0; k < wanted.length; k++) if (keys[at + k] !== wanted[k]) return false;
  return true;
}

/** Segments in order with any number of skipped lines between them; each segment at its first fit. */
function elidedCandidates(keys: string[], segments: string[][], scope: Span, level: MatchLevel): BlockMatch[] {
  const real = segments.filter((s) => s.length > 0);
  if (real.length < 2 || segments[0]!.length === 0 || segments[segments.length - 1]!.length === 0) return [];
  const found: BlockMatch[] = [];
  for (let i = scope.start; i < scope.end; i++) {
    if (!matchesAt(keys, real[0]!, i) || i + real[0]!.length > keys.length) continue;
    const spans: Span[] = [{ start: i, end: i + real[0]!.length }];
    let at = spans[0]!.end;
    for (const segment of real.slice(1)) {
      while (at + segment.length <= keys.length && !matchesAt(keys, segment, at)) at++;
      if (at + segment.length > keys.length) break;
      spans.push({ start: at, end: at + segment.length });
      at += segment.length;
    }
    if (spans.length !== real.length) continue;
    const gaps = spans.slice(1).map((span, k) => ({ start: spans[k]!.end, end: span.start }));
    found.push({ start: i, end: at, level, similarity: 1, segments: spans, gaps });
  }
  return found;
}

/** Windows of the pattern's length ±1 line whose collapsed text is at least `min` similar. */
function fuzzyCandidates(file: SearchableFile, pattern: string[], scope: Span, min: number): BlockMatch[] {
  const wanted = pattern.map(fuzzyKey).join("\n");
  const m = pattern.length;
  const found: BlockMatch[] = [];
  for (let i = scope.start; i < scope.end; i++) {
    for (const len of [m, m - 1, m + 1]) {
      if (len < 1 || i + len > file.lines.length) continue;
      const text = file.fuzzyKeys.slice(i, i + len).join("\n");
      const score = similarity(text, wanted, min);
      if (score >= min && score > 0)
        found.push({ start: i, end: i + len, level: "fuzzy", similarity: score, segments: [{ start: i, end: i + len }], gaps: [] });
    }
  }
  return found;
}

function trustworthy(file: SearchableFile, pattern: string[], candidate: BlockMatch): boolean {
  if (candidate.similarity >= FUZZY_ALONE) return true;
  const present = new Set(file.looseKeys.slice(candidate.start, candidate.end));
  const real = pattern.map(looseKey).filter((key) => key !== "");
  return real.filter((key) => present.has(key)).length * 2 >= real.length;
}

function distance(candidate: Span, hint: Span): number {
  return Math.min(Math.abs(candidate.start - hint.start), Math.abs(candidate.end - hint.end));
}

/** How choose weighs the candidates found at one level, and what it reports with its choice. */
interface ChoiceRules {
  /** The level the candidates were found at. */
  level: MatchLevel;
  /** Candidates this much less similar than the best still count as equally good. */
  tie: number;
  /** Whether the candidates were found through the pattern's elision markers. */
  elided: boolean;
}

/** One best place, or the nearest to the given lines when it is clearly nearest; otherwise ambiguous. */
function choose(candidates: BlockMatch[], hint: Span | null, { level, tie, elided }: ChoiceRules): FindOutcome {
  const best = Math.max(...candidates.map((c) => c.similarity));
  const near = (c: BlockMatch): number => (hint ? distance(c, hint) : 0);
  const pool = candidates.filter((c) => c.similarity >= best - tie).sort((a, b) => b.similarity - a.similarity || near(a) - near(b));
  // Fuzzy windows shifted by a line are the same place seen twice; literal matches are all distinct.
  const distinct = level === "fuzzy" ? pool.filter((c, k) => !pool.slice(0, k).some((d) => overlaps(c, d))) : pool;
  if (distinct.length === 1) return { kind: "found", match: distinct[0]!, elided };
  if (hint) {
    // Nearest by the closer end; among those, by both ends (elided matches may share an end).
    const both = (c: BlockMatch): number => Math.abs(c.start - hint.start) + Math.abs(c.end - hint.end);
    const byDistance = [...distinct].sort((a, b) => near(a) - near(b) || both(a) - both(b));
    const [first, second] = byDistance;
    const closer = first && second && (near(first) < near(second) || (near(first) === near(second) && both(first) < both(second)));
    if (first && closer && near(first) <= MAX_MISCOUNT) return { kind: "found", match: first, elided };
  }
  return { kind: "ambiguous", level, candidates: distinct.sort((a, b) => a.start - b.start) };
}

function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}
