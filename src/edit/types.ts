/**
 * Replace lines `start`..`end` (1-based, inclusive) that the model says hold `old` with `new`. `old` anchors every edit,
 * an insertion too (a neighbouring line kept in `new`); only an empty file takes an empty `old` (start 1, end 0).
 */
export interface RangeEdit {
  kind: "range";
  start: number;
  end: number;
  old: string;
  new: string;
}

/** Replace the one place in the file that holds `search` with `replace`. */
export interface SearchReplaceEdit {
  kind: "search-replace";
  search: string;
  replace: string;
}

/** One change a Developer proposes for one file. */
export type Edit = RangeEdit | SearchReplaceEdit;

/** How an edit's anchor text matched the file: as written (trailing blanks aside), ignoring whitespace, or fuzzily. */
export type MatchLevel = "exact" | "whitespace" | "fuzzy";

/**
 * Where one edit landed, for traces and benchmarks (lines 1-based inclusive; text put into an empty file has start 1, end 0):
 * `moved` when not at the given lines, `elided` when "..." lines were filled in, `reindented` when `new` was shifted.
 */
export interface EditPlacement {
  index: number;
  start: number;
  end: number;
  level: MatchLevel;
  similarity: number;
  moved: boolean;
  elided: boolean;
  reindented: boolean;
}

/** The outcome of applying a list of edits: the new text, or a message written for the model. */
export type ApplyResult = { ok: true; text: string; placements: EditPlacement[] } | { ok: false; error: string };
