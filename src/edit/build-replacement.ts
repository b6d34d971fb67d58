import { isElision, splitAtElisions } from "./elisions.js";
import { describeSpan, quoteLines } from "./describe-place.js";
import type { BlockMatch, Span } from "./find-block.js";
import { reindent, type LinePair } from "./reindent.js";

/** The lines that take a matched block's place; eols are kept for file lines carried over. */
export interface ReplacementLines {
  lines: string[];
  eols: (string | undefined)[];
  reindented: boolean;
}

/** What buildReplacement combines: the file, where the model's `old` lines matched in it, and the model's lines. */
export interface ReplacementInput {
  fileLines: string[];
  /** Each file line's end of line, carried over with the lines that elision markers keep. */
  fileEols: string[];
  match: BlockMatch;
  /** The model's `old` lines, as they were matched. */
  oldLines: string[];
  /** The model's `new` lines, with its elision markers. */
  newLines: string[];
  /** Whether the match skipped lines at `old`'s elision markers. */
  elided: boolean;
}

/**
 * Turn the model's `new` lines into the lines that replace `match`: re-indented to the file, trailing
 * blanks dropped when the model padded `old`, and elision markers filled with the lines they skipped
 * (`new` must keep one marker per run `old` skipped: nothing the model did not write out is dropped).
 */
export function buildReplacement({ fileLines, fileEols, match, oldLines, newLines, elided }: ReplacementInput): ReplacementLines | { error: string } {
  const oldSegments = elided ? splitAtElisions(oldLines).filter((s) => s.length > 0) : [oldLines];
  const pairs = oldSegments.flatMap((segment, k) => pairLines(segment, fileLines, match.segments[k]!));
  const padded = pairs.some(([model, file]) => model !== model.trimEnd() && file === file.trimEnd());
  const gaps = elided ? match.gaps : [];
  const markerCount = gaps.length > 0 ? splitAtElisions(newLines).length - 1 : 0;
  // Without its markers `new` would replace the skipped lines too: code the model never wrote out, lost unseen.
  const losesLines = markerCount === 0 && gaps.some((gap) => gap.end > gap.start);
  if (markerCount !== gaps.length && (markerCount > 0 || losesLines)) {
    const skipped = gaps.map((gap) => describeSpan(gap)).join(", ");
    const quoted = gaps
      .filter((gap) => gap.end > gap.start)
      .map((gap) => quoteLines(fileLines, gap))
      .join("\n…\n");
    return {
      error:
        `\`old\` skips ${gaps.length} run(s) of lines with "..." (${skipped}) but \`new\` has ${markerCount} such marker(s), ` +
        `so it is not clear which lines stay; write the same number of "..." lines in \`new\` where the skipped lines stay, ` +
        `or copy the skipped lines into \`old\` and write out what replaces them.` +
        (quoted ? ` The skipped lines:\n${quoted}\n` : ""),
    };
  }
  const modelLines = newLines.filter((line) => markerCount === 0 || !isElision(line));
  const shifted = reindent(pairs, padded ? modelLines.map((l) => l.trimEnd()) : modelLines);
  const lines: string[] = [];
  const eols: (string | undefined)[] = [];
  let next = 0;
  let gap = 0;
  for (const line of newLines) {
    if (markerCount > 0 && isElision(line)) {
      const span = gaps[gap++]!;
      lines.push(...fileLines.slice(span.start, span.end));
      eols.push(...fileEols.slice(span.start, span.end));
    } else {
      lines.push(shifted.lines[next++]!);
      eols.push(undefined);
    }
  }
  return { lines, eols, reindented: shifted.changed };
}

/** Pair model lines with file lines: one to one when the counts agree, else in order by equal content. */
function pairLines(model: string[], fileLines: string[], span: Span): LinePair[] {
  const file = fileLines.slice(span.start, span.end);
  if (model.length === file.length) return model.map((line, k): LinePair => [line, file[k]!]);
  const key = (line: string): string => line.replace(/\s+/g, "");
  const pairs: LinePair[] = [];
  let at = 0;
  for (const line of model) {
    if (key(line) === "") continue;
    const found = file.findIndex((candidate, j) => j >= at && key(candidate) === key(line));
    if (found === -1) continue;
    pairs.push([line, file[found]!]);
    at = found + 1;
  }
  if (pairs.length > 0) return pairs;
  const firstModel = model.find((line) => key(line) !== "");
  const firstFile = file.find((line) => key(line) !== "");
  return firstModel !== undefined && firstFile !== undefined ? [[firstModel, firstFile]] : [];
}
