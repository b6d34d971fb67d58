/**
 * Lines models write in place of unchanged code they skip: `...`, `…`, `# ...`, `// ... existing code ...`,
 * `/* ... *\/`, `<!-- ... -->`. Only whole lines count, and only when the literal text is not in the file.
 */
const ELISION = /^(?:\/\/|#|--|;+|%|\/\*+|<!--|\*)?\s*(?:\.\.\.|…)\s*(?:[A-Za-z][\w\s,'()/-]*?)?\s*(?:\.\.\.|…)?\s*(?:\*+\/|-->)?$/;

/** Whether a line stands for skipped lines. */
export function isElision(line: string): boolean {
  return ELISION.test(line.trim());
}

/** Cut lines at elision markers into the runs of real lines between them (runs may be empty). */
export function splitAtElisions(lines: string[]): string[][] {
  const segments: string[][] = [[]];
  for (const line of lines) {
    if (isElision(line)) segments.push([]);
    else segments[segments.length - 1]!.push(line);
  }
  return segments;
}
