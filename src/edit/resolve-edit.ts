import { buildReplacement } from "./build-replacement.js";
import { describeLines, describeSpan, quoteLines } from "./describe-place.js";
import { isElision } from "./elisions.js";
import { closestBlock, findBlock, FUZZY_THRESHOLD, NEARBY_LINES, type FindOutcome, type SearchableFile, type Span } from "./find-block.js";
import { readEditTexts } from "./read-edit-texts.js";
import { stripLineNumbers } from "./strip-line-numbers.js";
import type { Edit, EditPlacement } from "./types.js";

/** One edit placed in the original file: the span it replaces and the lines that take its place. */
export interface ResolvedEdit {
  label: string;
  span: Span;
  lines: string[];
  eols: (string | undefined)[];
  placement: EditPlacement;
}

/** Place one edit (1-based `index` in the list) in the original file, or say precisely why it cannot be placed. */
export function resolveEdit(file: SearchableFile, eols: string[], edit: Edit, index: number): ResolvedEdit | { error: string } {
  const n = file.lines.length;
  const given = edit.kind === "search-replace" ? [edit.search, edit.replace] : edit.kind === "range" ? [edit.old, edit.new] : [];
  if (given.length === 0 || given.some((text) => typeof text !== "string")) {
    return { error: `Edit ${index}: an edit is {kind: "range", start, end, old, new} or {kind: "search-replace", search, replace}, with text as strings.` };
  }
  // The file's text has no byte-order mark (the encoding keeps it); a model that echoes one must not add a second.
  const [oldGiven, newGiven] = given.map((text) => text.replace(/^\uFEFF/, "")) as [string, string];
  if (edit.kind === "search-replace") {
    const label = `Edit ${index} (search/replace)`;
    // "a\n\n" may mean a and a blank line (lines joined with "\n"): read so only when that alone is unique.
    const [searchText, replaceText] = readEditTexts(
      oldGiven,
      newGiven,
      (usual, joined) => findBlock(file, usual, null, true).kind === "ambiguous" && findBlock(file, joined, null, true).kind === "found",
    );
    const [searchLines, replaceLines] = [stripLineNumbers(searchText), stripLineNumbers(replaceText)];
    if (searchLines.length === 0) {
      if (n === 0) return verbatim(label, index, replaceLines);
      return { error: `${label}: \`search\` is empty; ${NO_ANCHOR("search")}` };
    }
    return anchor(file, eols, { label, index, oldLines: searchLines, newLines: replaceLines, hint: null, field: "search" });
  }
  const { start, end } = edit;
  const label = `Edit ${index} (${Number.isInteger(start) && Number.isInteger(end) ? describeLines(start, end) : "lines ?"})`;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start - 1) {
    return {
      error:
        `${label}: start and end must be whole line numbers with start ≥ 1 and end ≥ start (got start=${start}, end=${end}); ` +
        `to add lines without removing any, give the line next to the place and keep that line in \`new\`.`,
    };
  }
  // A final newline that makes `old` as long as the given range starts a blank line (lines joined with "\n").
  const [oldText, newText] = readEditTexts(oldGiven, newGiven, (usual, joined) => usual.length !== end - start + 1 && joined.length === end - start + 1);
  const oldLines = stripLineNumbers(oldText);
  const newLines = stripLineNumbers(newText);
  if (oldLines.length === 0) {
    // Only an empty file has no text to anchor on.
    if (n === 0) return verbatim(label, index, newLines);
    return { error: `${label}: \`old\` is empty, so only the line numbers would say where the edit goes, and they may be off; ${NO_ANCHOR("old")}` };
  }
  // Out-of-file numbers are only trusted as a hint for the lines right around them.
  return anchor(file, eols, { label, index, oldLines, newLines, hint: { start: start - 1, end }, field: "old", wholeFile: start <= n + 1 && end <= n });
}

/** The way to say an edit without an anchor: every edit, an insertion too, names existing lines it replaces. */
const NO_ANCHOR = (field: "old" | "search"): string =>
  `copy the lines you replace from the file into \`${field}\`. To add lines without removing any, copy the line next to ` +
  `the place into \`${field}\` and write it in the replacement too, with the new lines before or after it.`;

/** The text of an empty file: there is nothing to anchor on, nor anything to lose. */
function verbatim(label: string, index: number, lines: string[]): ResolvedEdit {
  const placement: EditPlacement = { index, start: 1, end: 0, level: "exact", similarity: 1, moved: false, elided: false, reindented: false };
  return { label, span: { start: 0, end: 0 }, lines, eols: lines.map(() => undefined), placement };
}

/** One edit as anchor places it: how messages name it, its lines as the model gave them, and where to look for them. */
interface EditToPlace {
  /** How messages name the edit, e.g. "Edit 2 (lines 4-9)". */
  label: string;
  /** The edit's 1-based place in the list. */
  index: number;
  /** The lines to find, as the model gave them. */
  oldLines: string[];
  /** The lines that take their place, as the model gave them. */
  newLines: string[];
  /** The given range (0-based), looked at first; null for a search/replace edit. */
  hint: Span | null;
  /** The field the model wrote the lines to find in, as messages name it. */
  field: "old" | "search";
  /** Whether the whole file may be searched, not only around `hint` (default true). */
  wholeFile?: boolean;
}

function anchor(file: SearchableFile, eols: string[], edit: EditToPlace): ResolvedEdit | { error: string } {
  const { label, index, oldLines: givenOld, newLines: givenNew, hint, field, wholeFile = true } = edit;
  const [oldLines, newLines] = dropSharedEdgeMarkers(givenOld, givenNew);
  if (oldLines.every((line) => line.trim() === "" || isElision(line))) {
    return { error: `${label}: \`${field}\` holds no code to find (only blank lines or "..."); copy the lines to change from the file.` };
  }
  const outcome = findBlock(file, oldLines, hint, wholeFile);
  if (outcome.kind !== "found") return { error: explainFailure(file, outcome, { label, field, oldLines, hint, wholeFile }) };
  const { match } = outcome;
  const built = buildReplacement({ fileLines: file.lines, fileEols: eols, match, oldLines, newLines, elided: outcome.elided });
  if ("error" in built) return { error: `${label}: ${built.error}` };
  const placement: EditPlacement = {
    index,
    start: match.start + 1,
    end: match.end,
    level: match.level,
    similarity: Math.round(match.similarity * 1000) / 1000,
    moved: hint !== null && (match.start !== hint.start || match.end !== hint.end),
    elided: outcome.elided,
    reindented: built.reindented,
  };
  return { label, span: { start: match.start, end: match.end }, lines: built.lines, eols: built.eols, placement };
}

/** A "..." that opens (or closes) both `old` and `new` only says "code continues here"; it changes nothing. */
function dropSharedEdgeMarkers(oldLines: string[], newLines: string[]): [string[], string[]] {
  let [o, n] = [oldLines, newLines];
  if (o.length > 1 && n.length > 0 && isElision(o[0]!) && isElision(n[0]!)) [o, n] = [o.slice(1), n.slice(1)];
  if (o.length > 1 && n.length > 0 && isElision(o[o.length - 1]!) && isElision(n[n.length - 1]!)) [o, n] = [o.slice(0, -1), n.slice(0, -1)];
  return [o, n];
}

/** The search that explainFailure explains: the edit's name, the lines looked for, and where they were looked for. */
interface FailedSearch {
  label: string;
  field: "old" | "search";
  /** The lines looked for (without the markers `old` and `new` shared at their edges). */
  oldLines: string[];
  hint: Span | null;
  /** Whether the whole file was searched, not only around `hint`. */
  wholeFile: boolean;
}

function explainFailure(file: SearchableFile, outcome: Exclude<FindOutcome, { kind: "found" }>, search: FailedSearch): string {
  const { label, field, oldLines, hint, wholeFile } = search;
  const retry = hint
    ? `Send the edit again with \`old\` copied exactly from the numbered view (without the line numbers) and the line numbers where it is.`
    : `Send the edit again with \`search\` copied exactly from the file.`;
  if (outcome.kind === "ambiguous") {
    const how = outcome.level === "exact" ? "exactly" : outcome.level === "whitespace" ? "when whitespace is ignored" : `at similarity ≥ ${FUZZY_THRESHOLD}`;
    const places = outcome.candidates
      .slice(0, 10)
      .map((c) => describeSpan(c))
      .join(", ");
    const more = outcome.candidates.length > 10 ? ` and ${outcome.candidates.length - 10} more` : "";
    return (
      `${label}: the \`${field}\` text fits ${outcome.candidates.length} places equally well (${how}): ${places}${more}. ` +
      `Add a few unchanged lines above or below it to \`${field}\` and to the replacement so that it fits only one place` +
      (hint ? `, and give that place's line numbers.` : `.`)
    );
  }
  const where = hint
    ? wholeFile
      ? `the \`old\` text is not at ${describeSpan(hint)}, nor anywhere else in the file`
      : `the range ${describeSpan(hint)} is outside the file (it has ${file.lines.length} lines) and the \`old\` text is not within ${NEARBY_LINES} lines of it`
    : `the \`search\` text is not in the file`;
  const closest = closestBlock(file, oldLines, hint);
  const shown = closest
    ? ` The closest text is at ${describeSpan(closest)} (similarity ${closest.similarity.toFixed(2)}):\n${quoteLines(file.lines, closest)}\n`
    : " ";
  return `${label}: ${where} (not exactly, not ignoring whitespace, not at similarity ≥ ${FUZZY_THRESHOLD}).${shown}${retry}`;
}
