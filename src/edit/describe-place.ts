import type { Span } from "./find-block.js";

/** Lines as the model reads them: "lines 3-5", "line 3", or "before line 3" for an insertion point. */
export function describeLines(start: number, end: number): string {
  if (end < start) return `before line ${start}`;
  return start === end ? `line ${start}` : `lines ${start}-${end}`;
}

/** A 0-based half-open span described as 1-based lines. */
export function describeSpan(span: Span): string {
  return describeLines(span.start + 1, span.end);
}

/** Up to `max` lines of the file around a span in the numbered view, to quote in a message. */
export function quoteLines(lines: string[], span: Span, max = 12): string {
  const end = Math.min(span.end, span.start + max);
  const width = String(end).length;
  const quoted = lines.slice(span.start, end).map((line, k) => `${String(span.start + k + 1).padStart(width)} | ${line}`);
  if (span.end > end) quoted.push(`… (${span.end - end} more lines)`);
  return quoted.join("\n");
}
