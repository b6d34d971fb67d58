import type { IssueText, ShownIssue } from "./types.js";

/** Most characters of body and hints together in a prompt (~3,000 tokens): each agent call shows the issue again. */
export const MAX_ISSUE_CHARS = 12_000;
/** What the hints keep of that budget when the body needs more: the maintainer's guidance and a review are in them. */
const MIN_HINT_CHARS = 4_000;
/** GitHub's own limit on a title. */
const MAX_TITLE_CHARS = 256;

/**
 * The issue as every agent prompt shows it: title, body, then hints if any, within MAX_ISSUE_CHARS.
 * A pasted log or attachment can make a body of a megabyte, which would be sent again with every
 * Manager, Developer and QA call. The order of what is kept: (1) the title, cut to 256 characters;
 * (2) everything, when body and hints fit; (3) otherwise the hints keep up to MIN_HINT_CHARS
 * (more if the body is short), shared evenly among them so one long comment cannot crowd out the
 * others, and the body the rest; (4) a text over its share keeps its head and its tail (where a log
 * ends with its error) and says, in the text, how much was cut in between.
 */
export function formatIssue(issue: IssueText): string {
  const body = issue.body.trim() || "(no description)";
  const hints = issue.hints.map((hint) => hint.trim());
  const hintChars = hints.reduce((sum, hint) => sum + hint.length, 0);
  const hintBudget = body.length + hintChars <= MAX_ISSUE_CHARS ? hintChars : Math.min(hintChars, Math.max(MIN_HINT_CHARS, MAX_ISSUE_CHARS - body.length));
  const hintShares = shareEvenly(
    hints.map((hint) => hint.length),
    hintBudget,
  );
  const parts = [`### ${clipEnd(issue.title.trim(), MAX_TITLE_CHARS)}`, clipMiddle(body, MAX_ISSUE_CHARS - hintBudget, "the issue's description")];
  if (hints.length > 0) {
    parts.push("### Hints", ...hints.map((hint, i) => `- ${clipMiddle(hint, hintShares[i]!, "this hint").replace(/\n/g, "\n  ")}`));
  }
  return parts.join("\n\n");
}

/** The issue with its prompt text, formatted once: what a flow entering the pipeline hands its stages. */
export function showIssue(issue: IssueText): ShownIssue {
  return { ...issue, shown: formatIssue(issue) };
}

/** Splits `budget` among texts of these lengths: each gets an equal share, and a short one leaves what it does not need to the others. */
function shareEvenly(lengths: number[], budget: number): number[] {
  const shares = new Array<number>(lengths.length).fill(0);
  let left = budget;
  const byLength = lengths.map((length, i) => ({ length, i })).sort((a, b) => a.length - b.length);
  byLength.forEach(({ length, i }, rank) => {
    shares[i] = Math.min(length, Math.floor(left / (byLength.length - rank)));
    left -= shares[i]!;
  });
  return shares;
}

/** The text within `limit` characters: its first two thirds and last third, cut at line breaks nearby, with a note of the cut. */
function clipMiddle(text: string, limit: number, what: string): string {
  if (text.length <= limit) return text;
  const reach = Math.ceil(limit / 10);
  const headEnd = cutNear(text, Math.floor((limit * 2) / 3), -1, reach);
  const tailStart = cutNear(text, text.length - (limit - headEnd), 1, reach);
  const cut = tailStart - headEnd;
  return `${text.slice(0, headEnd).trimEnd()}\n\n[… ${cut.toLocaleString("en-US")} characters of ${what} not shown …]\n\n${text.slice(tailStart).trimStart()}`;
}

function clipEnd(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, cutNear(text, limit - 1, -1, 0))}…`;
}

// A cut at a line break less than `reach` away keeps lines whole; elsewhere it is where it must be,
// moved away from the inside of a surrogate pair. Cutting towards -1 shortens the head, towards 1 the tail.
function cutNear(text: string, at: number, direction: -1 | 1, reach: number): number {
  const found = direction < 0 ? text.lastIndexOf("\n", at) : text.indexOf("\n", at);
  if (found !== -1 && Math.abs(found - at) <= reach) return direction < 0 ? found : found + 1;
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at + direction : at;
}
