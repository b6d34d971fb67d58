const NUMBERED = /^\s*(\d+) \|(?: |$)/;

/**
 * Drop the numbered-view prefixes (`  12 | `) when the model copied them along: only when every line
 * carries one and the numbers count up by one, so real code that looks alike is never touched.
 */
export function stripLineNumbers(lines: string[]): string[] {
  if (lines.length === 0) return lines;
  const numbers = lines.map((line) => NUMBERED.exec(line)?.[1]);
  if (numbers.some((n) => n === undefined)) return lines;
  const first = Number(numbers[0]);
  if (!numbers.every((n, k) => Number(n) === first + k)) return lines;
  return lines.map((line) => line.replace(NUMBERED, ""));
}
