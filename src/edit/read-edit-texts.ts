import { splitModelText } from "./split-text.js";

/** Lines of text joined with "\n": a trailing newline starts one more, blank line. */
function joinedLines(text: string): string[] {
  return text === "" ? [] : text.replace(/\r\n?/g, "\n").split("\n");
}

/**
 * Read an edit's old and new text as lines, in the convention `old` shows. Models either end every
 * line with "\n" or join lines with "\n". When `old` has no final newline the lines are joined, so a
 * final newline in `new` is one more, blank line. When it has one but a non-empty `new` has none, the
 * lines are joined too and `old` ends with a blank line. Otherwise the usual reading (that newline only
 * ends the last line) holds unless `preferJoined` says the joined reading fits the file better.
 */
export function readEditTexts(old: string, replacement: string, preferJoined: (usual: string[], joined: string[]) => boolean): [string[], string[]] {
  if (old === "") return [[], splitModelText(replacement)];
  if (!/\n$/.test(old)) return [joinedLines(old), joinedLines(replacement)];
  const usual = splitModelText(old);
  const joined = joinedLines(old);
  const joinedNew = replacement !== "" && !/\n$/.test(replacement);
  return joinedNew || preferJoined(usual, joined) ? [joined, joinedLines(replacement)] : [usual, splitModelText(replacement)];
}
