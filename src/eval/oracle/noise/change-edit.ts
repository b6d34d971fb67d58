import { changeObject, objectOf, type NoiseKind, type NoisyContent, type OracleAnswer } from "./noise-kind.js";
import { pick } from "./seeded-random.js";

// The edit block of shared decision B: markers on their own lines, the replacement possibly empty.
const EDIT_BLOCK = /^<<<<<<< SEARCH\n([\s\S]*?)\n=======\n(?:[\s\S]*?\n)?>>>>>>> REPLACE$/m;
const COMMENT = /(#|\/\/)([ \t]*)(\S.*)$/;
// The fields of developer-write-code's JSON answer: lines joined with "\n".
const EDIT_TEXTS = new Set(["old", "new"]);

/** Line numbers off by a few: every range of developer-locate-lines moved by the same 1-3 lines, up or down. */
export const linesOff: NoiseKind = {
  name: "lines-off",
  // Only developer-locate-lines' answers have ranges: among the nine kinds that fit them, it would rarely be drawn.
  weight: 3,
  fits: (answer) => rangesOf(answer).length > 0,
  apply: (answer, random) => {
    const shift = pick(random, [-3, -2, -1, 1, 2, 3]);
    return changeObject(answer, (object) => {
      for (const range of object.ranges as { start: number; end: number }[]) {
        const start = Math.max(1, range.start + shift);
        range.end = Math.max(start, range.end + shift);
        range.start = start;
      }
    });
  },
};

/** The replaced text (`old`, the SEARCH side) with its indentation lost. */
export const searchUnindented: NoiseKind = {
  name: "search-unindented",
  fits: (answer) => (searchSideOf(answer) ?? "").split("\n").some((line) => /^[ \t]+\S/.test(line)),
  apply: (answer) => withSearchSide(answer, (text) => text.replace(/^[ \t]+/gm, "")),
};

/** The replaced text (`old`, the SEARCH side) with a comment in it reworded. */
export const searchCommentChanged: NoiseKind = {
  name: "search-comment-changed",
  fits: (answer) => (searchSideOf(answer) ?? "").split("\n").some((line) => COMMENT.test(line)),
  apply: (answer, random) => {
    const lines = searchSideOf(answer)!.split("\n");
    const commented = lines.flatMap((line, i) => (COMMENT.test(line) ? [i] : []));
    const i = pick(random, commented);
    lines[i] = lines[i]!.replace(COMMENT, (_, marker: string, space: string, text: string) => `${marker}${space}${reword(text)}`);
    return withSearchSide(answer, () => lines.join("\n"));
  },
};

/**
 * An extra edit elsewhere in the file: one more line range in developer-locate-lines (a line of the file no range
 * touches), or a second SEARCH/REPLACE block that changes a line of the code shown around the edit.
 */
export const extraEdit: NoiseKind = {
  name: "extra-edit",
  fits: (answer) => (rangesOf(answer).length > 0 && freeLines(answer).length > 0) || (editBlockOf(answer) !== null && contextLines(answer).length > 0),
  apply: (answer, random) => {
    if (rangesOf(answer).length > 0) {
      const line = pick(random, freeLines(answer));
      return changeObject(answer, (object) => {
        const ranges = object.ranges as { start: number; end: number }[];
        ranges.push({ start: line, end: line, why: "this line could be tidied too" } as (typeof ranges)[number]);
        ranges.sort((a, b) => a.start - b.start);
      });
    }
    const line = pick(random, contextLines(answer));
    const extra = `<<<<<<< SEARCH\n${line}\n=======\n${line} # tidied\n>>>>>>> REPLACE`;
    return { content: `${answer.value as string}\n\n${extra}\n`, finishReason: "stop" };
  },
};

/**
 * A trailing newline dropped: of a text answer, or of a JSON string field that ends with one (a script's text). Not of
 * an edit's `old` and `new`, whose lines are joined with "\n": there a final "\n" is a blank line of the code, and
 * dropping it is a change of the code, not of its format.
 */
export const newlineDropped: NoiseKind = {
  name: "newline-dropped",
  fits: (answer) => (typeof answer.value === "string" ? answer.value.endsWith("\n") : stringsEndingInNewline(answer).length > 0),
  apply: (answer, random) => {
    if (typeof answer.value === "string") return { content: answer.value.replace(/\n+$/, ""), finishReason: "stop" };
    const key = pick(random, stringsEndingInNewline(answer));
    return changeObject(answer, (object) => (object[key] = (object[key] as string).replace(/\n$/, "")));
  },
};

function rangesOf(answer: OracleAnswer): { start: number; end: number }[] {
  const ranges = objectOf(answer)?.ranges;
  return Array.isArray(ranges) ? (ranges as { start: number; end: number }[]) : [];
}

/** Lines of the numbered file (developer-locate-lines' `numbered`) with code that no range touches or borders. */
function freeLines(answer: OracleAnswer): number[] {
  const lines = (answer.vars.numbered ?? "").split("\n");
  const taken = (n: number) => rangesOf(answer).some((r) => n >= r.start - 1 && n <= r.end + 1);
  return lines.flatMap((line, i) => (/^\s*\d+ \|\s*\S/.test(line) && !taken(i + 1) ? [i + 1] : []));
}

/** Lines of code shown around the replaced lines (developer-write-code's `context`) outside them, without their numbers. */
function contextLines(answer: OracleAnswer): string[] {
  const [start, end] = [Number(answer.vars.start), Number(answer.vars.end)];
  return (answer.vars.context ?? "").split("\n").flatMap((line) => {
    const match = /^\s*(\d+) \| (.*\S.*)$/.exec(line);
    return match && (Number(match[1]) < start || Number(match[1]) > end) ? [match[2]!] : [];
  });
}

function editBlockOf(answer: OracleAnswer): RegExpExecArray | null {
  return typeof answer.value === "string" ? EDIT_BLOCK.exec(answer.value) : null;
}

/** The text an edit replaces: `old` of a JSON answer, or the SEARCH side of a text answer's edit block. */
function searchSideOf(answer: OracleAnswer): string | null {
  const old = objectOf(answer)?.old;
  if (typeof old === "string") return old;
  return editBlockOf(answer)?.[1] ?? null;
}

function withSearchSide(answer: OracleAnswer, change: (text: string) => string): NoisyContent {
  if (objectOf(answer)) return changeObject(answer, (object) => (object.old = change(object.old as string)));
  const block = editBlockOf(answer)!;
  const at = block.index + "<<<<<<< SEARCH\n".length;
  const text = answer.value as string;
  return { content: text.slice(0, at) + change(block[1]!) + text.slice(at + block[1]!.length), finishReason: "stop" };
}

function stringsEndingInNewline(answer: OracleAnswer): string[] {
  return Object.entries(objectOf(answer) ?? {}).flatMap(([key, value]) =>
    typeof value === "string" && value.endsWith("\n") && !EDIT_TEXTS.has(key) ? [key] : [],
  );
}

/** A comment's text said a little differently, as a model retyping it does. */
function reword(text: string): string {
  const capital = text.charAt(0);
  const recased = capital === capital.toUpperCase() ? capital.toLowerCase() : capital.toUpperCase();
  return `${recased}${text.slice(1).replace(/\.$/, "")} (as noted)`;
}
