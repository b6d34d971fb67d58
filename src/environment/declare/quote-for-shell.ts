/** One word for `/bin/sh`, taken as it is: single-quoted, each `'` closed, escaped and reopened. */
export function quoteForShell(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argument list as one `/bin/sh` command line that runs exactly it: each word quoted, none expanded. */
export function quoteCommand(words: readonly string[]): string {
  return words.map(quoteForShell).join(" ");
}
