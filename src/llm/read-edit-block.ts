import type { TextAnswer } from "./types.js";
import { withoutThinkDraft } from "./without-think-draft.js";

/** An edit as developer-write-code answers it: the exact lines replaced, and their replacement (lines joined with "\n"). */
export interface EditBlock {
  old: string;
  new: string;
}

const SEARCH = "<<<<<<< SEARCH";
const DIVIDER = "=======";
const REPLACE = ">>>>>>> REPLACE";

/** The edit format in one line, for the corrective message. */
export const EDIT_BLOCK_ASKED =
  `your reasoning as prose if you like, then exactly one block: a line \`${SEARCH}\`, the exact lines you replace ` +
  `(copied from the file, without line numbers), a line \`${DIVIDER}\`, the lines that replace them, and a line \`${REPLACE}\`; ` +
  "each marker on a line of its own, a ``` fence around the block optional.";

/**
 * The reader of developer-write-code's answer. `shown` is the text of the lines the model was asked to replace: when
 * those lines themselves hold a `=======` line, it tells which `=======` of the answer divides SEARCH from REPLACE.
 */
export function editBlockAnswer(shown?: string): TextAnswer<EditBlock> {
  return { asked: EDIT_BLOCK_ASKED, read: (raw) => readEditBlock(raw, shown) };
}

/**
 * Reads one SEARCH/REPLACE block out of a model's answer, strictly: prose may come before or after it and a ``` fence
 * may wrap it, but there must be exactly one block, its three markers each on a line of its own, and a SEARCH part that
 * quotes at least one line. Every refusal says what was wrong and what to write instead.
 */
export function readEditBlock(raw: string, shown?: string): { ok: true; value: EditBlock } | { ok: false; problem: string } {
  const lines = withoutThinkDraft(raw).replace(/\r\n?/g, "\n").split("\n");
  const [searches, replaces] = [linesOf(lines, SEARCH), linesOf(lines, REPLACE)];
  if (searches.length === 0 && replaces.length === 0) {
    return {
      ok: false,
      problem: misplaced(lines, SEARCH) ?? `the answer holds no SEARCH/REPLACE block (no line \`${SEARCH}\`); write your change as one such block`,
    };
  }
  if (searches.length > 1 || replaces.length > 1) {
    const count = Math.max(searches.length, replaces.length);
    return {
      ok: false,
      problem:
        `the answer holds ${count} SEARCH/REPLACE blocks (lines \`${SEARCH}\` at ${lineList(searches)}, \`${REPLACE}\` at ${lineList(replaces)}); ` +
        "write exactly one block, covering all the lines you replace",
    };
  }
  if (searches.length === 0) {
    return {
      ok: false,
      problem: misplaced(lines, SEARCH) ?? `the block has no line \`${SEARCH}\` before the lines it replaces; start the block with that line`,
    };
  }
  if (replaces.length === 0) {
    return { ok: false, problem: misplaced(lines, REPLACE) ?? `the block has no line \`${REPLACE}\` after the replacement; end the block with that line` };
  }
  const [start, end] = [searches[0]!, replaces[0]!];
  if (end < start) return { ok: false, problem: `the line \`${REPLACE}\` (line ${end + 1}) comes before \`${SEARCH}\` (line ${start + 1}); put SEARCH first` };
  const divided = divide(lines, start, end, shown);
  if (!divided.ok) return divided;
  const { search, replace } = divided;
  // No line, or one blank line, is no anchor (the edit machinery reads both as an empty `old`); several blank lines are.
  if (search.length === 0 || (search.length === 1 && search[0]!.trim() === "")) {
    return {
      ok: false,
      problem:
        "the SEARCH part is empty, so nothing says which lines change; copy into it the exact lines you replace, as the file shows them. " +
        "To add lines without removing any, copy the line next to the place into SEARCH and write it in REPLACE too, with the new " +
        "lines before or after it. This answer changes lines of the file you were shown; it does not create files",
    };
  }
  return { ok: true, value: joined(search, replace) };
}

/** The SEARCH and REPLACE parts of the block between lines `start` and `end`, split at its `=======` line. */
function divide(
  lines: string[],
  start: number,
  end: number,
  shown?: string,
): { ok: true; search: string[]; replace: string[] } | { ok: false; problem: string } {
  const inner = lines.slice(start + 1, end);
  const dividers = linesOf(inner, DIVIDER);
  if (dividers.length === 0) {
    return {
      ok: false,
      problem:
        misplaced(inner, DIVIDER, start + 1) ??
        `the block (lines ${start + 1}-${end + 1}) has no line \`${DIVIDER}\` between the lines you replace and their replacement; write that line between them`,
    };
  }
  // The replaced lines may hold `=======` lines of their own (a reStructuredText heading): as many come before the divider.
  const own = shown === undefined ? 0 : linesOf(shown.split(/\r?\n/), DIVIDER).length;
  if (dividers.length > 1 && own === 0) {
    return {
      ok: false,
      problem:
        `the block has ${dividers.length} lines \`${DIVIDER}\` (lines ${lineList(dividers, start + 1)}), so it is unclear where the lines you replace end; ` +
        `write one \`${DIVIDER}\` line, between the lines you replace and their replacement`,
    };
  }
  const at = dividers[Math.min(own, dividers.length - 1)]!;
  return { ok: true, search: inner.slice(0, at), replace: inner.slice(at + 1) };
}

/**
 * The old and new texts the edit machinery reads (RangeEdit): lines joined with "\n". A replacement of exactly one blank
 * line is written with every line ending in "\n", since joined it would read as no line at all (a deletion).
 */
function joined(search: string[], replace: string[]): EditBlock {
  if (replace.length === 1 && replace[0] === "") return { old: search.map((line) => `${line}\n`).join(""), new: "\n" };
  return { old: search.join("\n"), new: replace.join("\n") };
}

/** Indexes of the lines that are `marker` alone (blanks around it aside). */
function linesOf(lines: string[], marker: string): number[] {
  return lines.flatMap((line, i) => (line.trim() === marker ? [i] : []));
}

/**
 * The first line that holds `marker` with other text (`<<<<<<< SEARCH foo.py`, "```>>>>>>> REPLACE", `========`), said as
 * a problem; `offset` turns indexes of a slice into lines of the answer. A divider counts when it starts or ends its line.
 */
function misplaced(lines: string[], marker: string, offset = 0): string | null {
  const index = lines.findIndex((line) => {
    if (!line.includes(marker)) return false;
    return marker !== DIVIDER || /^\s*=======|=======\s*$/.test(line);
  });
  if (index === -1) return null;
  const line = lines[index]!.trim();
  return `the marker \`${marker}\` must be alone on its line, exactly so, but line ${index + offset + 1} is \`${line.slice(0, 80)}\`; put the marker on a line of its own`;
}

/** 0-based line indexes (of a slice starting at `offset`) as the 1-based numbers of the answer's lines, e.g. "3, 9". */
function lineList(indexes: number[], offset = 0): string {
  return indexes.map((i) => i + offset + 1).join(", ");
}
