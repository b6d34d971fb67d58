/** A file cut into lines, remembering each line's terminator so that untouched lines keep theirs. */
export interface FileLines {
  lines: string[];
  /** Terminator after each line ("\n", "\r\n", or "" for a last line without one). */
  eols: string[];
  /** The file's dominant line ending, given to new lines. */
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

/** Cut a file into lines; an empty file counts as ending with a newline so that new content gets one. */
export function splitFile(text: string): FileLines {
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  let lf = 0;
  let from = 0;
  while (from < text.length) {
    const nl = text.indexOf("\n", from);
    if (nl === -1) {
      lines.push(text.slice(from));
      eols.push("");
      break;
    }
    const isCrlf = nl > from && text[nl - 1] === "\r";
    lines.push(text.slice(from, isCrlf ? nl - 1 : nl));
    eols.push(isCrlf ? "\r\n" : "\n");
    if (isCrlf) crlf++;
    else lf++;
    from = nl + 1;
  }
  return {
    lines,
    eols,
    eol: crlf > lf ? "\r\n" : "\n",
    finalNewline: text.length === 0 || eols[eols.length - 1] !== "",
  };
}

/** Join lines back, giving new lines the dominant ending and keeping the file's final-newline habit. */
export function joinFile(lines: string[], eols: (string | undefined)[], file: FileLines): string {
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const last = i === lines.length - 1;
    let eol = eols[i] || file.eol;
    if (last && !file.finalNewline) eol = "";
    out += lines[i] + eol;
  }
  return out;
}

/** Cut text the model wrote into lines: any line ending, one trailing newline ignored, "" is no lines. */
export function splitModelText(text: string): string[] {
  if (text === "") return [];
  const normalized = text.replace(/\r\n?/g, "\n");
  const body = normalized.endsWith("\n") ? normalized.slice(0, -1) : normalized;
  return body.split("\n");
}
