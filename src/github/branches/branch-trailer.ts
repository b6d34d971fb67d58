/**
 * The commit message trailer naming the bot branch a commit was made for. With the author and GitHub's signature, it
 * is how the bot knows a branch holds only its own commits, whoever GitHub records as their committer.
 */
export const BRANCH_TRAILER = "MAGIS-Branch";

// A trailer line as git reads one: a token, a colon, a value.
const TRAILER_LINE = /^[A-Za-z0-9][A-Za-z0-9-]*: \S/;

/** The message with `MAGIS-Branch: <branch>`: joined to its last paragraph when that is a block of trailers, else one of its own. */
export function addBranchTrailer(message: string, branch: string): string {
  const text = message.trimEnd();
  const trailer = `${BRANCH_TRAILER}: ${branch}`;
  const last = lastParagraph(text);
  if (last.includes(trailer)) return text;
  return last.length > 0 && last.every((line) => TRAILER_LINE.test(line)) && text.includes("\n\n") ? `${text}\n${trailer}` : `${text}\n\n${trailer}`;
}

/** Whether a commit message's closing trailers name `branch` as the bot branch it was made for. */
export function carriesBranchTrailer(message: string, branch: string): boolean {
  return lastParagraph(message.trimEnd()).includes(`${BRANCH_TRAILER}: ${branch}`);
}

function lastParagraph(text: string): string[] {
  return text
    .slice(text.lastIndexOf("\n\n") + 1)
    .split("\n")
    .filter((line) => line !== "");
}
