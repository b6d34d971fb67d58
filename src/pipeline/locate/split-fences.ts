// An opener is three backticks or tildes and the rest of its line, as in GitHub's loose reading of
// issues, where "why does ```x()``` fail" opens a fence too. Searched only up to the last line break:
// on the last line an opener can have no line break after it, and letting the pattern try each of
// many ``` there would scan that line once per try.
const OPENER = /```[^\n]*\n|~~~[^\n]*\n/g;

/**
 * Separates the fenced code blocks of issue text from its prose: each block's code (up to its closing
 * fence of the same kind, or the end of the text when it is never closed), and the text with every
 * block, fences included, replaced by a space. Linear in the length of the text.
 */
export function splitFences(text: string): { code: string[]; prose: string } {
  const opensBefore = text.lastIndexOf("\n") + 1;
  const head = text.slice(0, opensBefore);
  const code: string[] = [];
  const prose: string[] = [];
  let done = 0;
  OPENER.lastIndex = 0;
  for (let opener = OPENER.exec(head); opener !== null; opener = OPENER.exec(head)) {
    const from = opener.index + opener[0].length;
    const close = text.indexOf(opener[0].slice(0, 3), from);
    const to = close === -1 ? text.length : close;
    code.push(text.slice(from, to));
    prose.push(text.slice(done, opener.index), " ");
    done = close === -1 ? text.length : close + 3;
    OPENER.lastIndex = done;
  }
  prose.push(text.slice(done));
  return { code, prose: prose.join("") };
}
