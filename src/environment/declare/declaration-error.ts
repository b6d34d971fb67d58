/**
 * Thrown when a file that declares the repository's environment cannot be read as one: it names the file, the place
 * (line and column where there is one), what is wrong and what to do.
 */
export class DeclarationError extends Error {
  constructor(
    /** The file, relative to the repository's root. */
    readonly file: string,
    /** What is wrong, with the place: "line 4, column 3: expected ',' between entries". */
    readonly problem: string,
    /** What the maintainer can do about it. */
    readonly nextStep: string,
  ) {
    super(`${file}: ${problem}. ${nextStep}`);
    this.name = "DeclarationError";
  }
}

/** The line and column (from 1) of a character offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}
