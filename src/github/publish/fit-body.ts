import { splitMarkdown } from "../../lib/split-markdown.js";

/**
 * The longest body GitHub takes for an issue, a pull request or a comment ("body is too long (maximum is 65536
 * characters)", a 422). Counted here in UTF-16 code units, as `length` counts: never fewer than the code points
 * GitHub is reported to count for a pull request body, and at most 3 UTF-8 bytes each (196,608 bytes), under the
 * 262,144 bytes reported for comments. A body within it fits whichever way GitHub counts.
 */
export const GITHUB_BODY_LIMIT = 65_536;

/**
 * The longest step summary of an Action run: GitHub takes 1 MiB of UTF-8 per step, which a third as many UTF-16
 * code units never exceed.
 */
export const STEP_SUMMARY_LIMIT = Math.floor(1_048_576 / 3);

/** The note that ends a comment cut to fit. */
export const CUT_NOTE = `*(Cut here: GitHub takes at most ${GITHUB_BODY_LIMIT.toLocaleString("en-US")} characters in a comment.)*`;

/**
 * The text as it is when it fits `limit`; otherwise its beginning, cut between blocks with every fence and section
 * closed, then `note`, all within `limit`.
 */
export function capBody(text: string, note = CUT_NOTE, limit = GITHUB_BODY_LIMIT): string {
  if (text.length <= limit) return text;
  const room = limit - note.length - 2;
  return `${splitMarkdown(text, { first: room, rest: room })[0]!}\n\n${note}`;
}
