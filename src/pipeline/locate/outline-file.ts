import { definitionLineStarts, extractDefinitions } from "./extract-definitions.js";
import { leadingComments } from "./read-candidate.js";

/** Files up to this many characters are summarized from their whole text: an outline would save little of them. */
export const WHOLE_FILE_CHARS = 6_000;
/** Most characters of an outline put in a prompt (about 2,000 tokens); what is cut is replaced by the names the rest defines. */
export const OUTLINE_CHARS = 8_000;

// The lines of the header kept: the module's docstring or licence comment says what the file is for in its first lines.
const HEADER_LINES = 8;
// A definition's signature may run over several lines (`def f(\n    a,\n    b,\n):`): at most this many are kept.
const SIGNATURE_LINES = 6;
// Lines that say what a file depends on, at the start of a line: Python, JS/TS, C/C++, C#, Rust, Go, PHP, Ruby.
const DEPENDENCY = /^(?:import\s|from\s+\S+\s+import\s|#include\s|using\s+[\w.]+;|use\s|require[\s(]|require_relative\s|package\s)/;
// Module-level settings: `__all__ = [...]`, `DEFAULT_TIMEOUT = 30`, `export const X = ...` (caught as definitions).
const SETTING = /^(?:__all__|__version__|[A-Z][A-Z0-9_]*)\s*(?::[^=\n]+)?=/;
const DECORATOR = /^\s*@/;
const DOCSTRING_OPEN = /^\s*[rRuUbB]{0,2}("""|''')/;
const COMMENT = /^\s*(?:\/\/|\/\*\*?|\*|#(?!include)|--)/;

/**
 * What a file's summary is made from: the whole text of a short file, else its outline (see {@link outlineFile}) when it
 * finds definitions, else the text cut to the prompt cap by the caller. The same function on an older version says
 * whether a summary made from it still holds.
 */
export function summaryInput(text: string, path: string): { kind: "text" | "outline"; input: string } {
  if (text.length <= WHOLE_FILE_CHARS) return { kind: "text", input: text };
  const outline = outlineFile(text, path);
  return outline === null ? { kind: "text", input: text } : { kind: "outline", input: outline };
}

/**
 * A file's outline: its header comment or docstring, the lines that import, the module's settings, and every definition
 * (with its decorators, its whole signature, and the first line of its docstring or of the comment above it); each
 * run of lines left out is one `...` line at its indentation. Null when the file defines nothing the patterns know.
 */
export function outlineFile(text: string, path: string): string | null {
  const starts = definitionLineStarts(text, path);
  if (starts.length === 0) return null;
  const lines = text.split("\n");
  const keep = new Set<number>();
  const headerLength = Math.min(leadingComments(text).split("\n").length, HEADER_LINES);
  for (let i = 0; i < headerLength && i < lines.length; i++) if (lines[i]!.trim() !== "") keep.add(i);
  lines.forEach((line, i) => {
    if (DEPENDENCY.test(line) || SETTING.test(line)) keep.add(i);
  });
  for (const line of lineNumbersOf(text, starts)) keepDefinition(lines, line, keep);
  return clipOutline(renderKept(lines, keep), path);
}

/** The 0-based line of each offset (offsets in increasing order). */
function lineNumbersOf(text: string, offsets: number[]): number[] {
  const numbers: number[] = [];
  let line = 0;
  let at = 0;
  for (const offset of offsets) {
    for (let next = text.indexOf("\n", at); next !== -1 && next < offset; next = text.indexOf("\n", at)) {
      line++;
      at = next + 1;
    }
    numbers.push(line);
  }
  return numbers;
}

/** Keeps a definition's line, the decorators and the comment line above it, the rest of its signature, and its docstring's first line. */
function keepDefinition(lines: string[], line: number, keep: Set<number>): void {
  keep.add(line);
  let above = line - 1;
  while (above >= 0 && DECORATOR.test(lines[above]!)) keep.add(above--);
  if (above >= 0 && COMMENT.test(lines[above]!)) keep.add(above);
  let end = line;
  let depth = openBrackets(lines[line]!);
  while (depth > 0 && end + 1 < lines.length && end - line < SIGNATURE_LINES - 1) {
    end++;
    keep.add(end);
    depth += openBrackets(lines[end]!);
  }
  const next = end + 1;
  if (next >= lines.length || !DOCSTRING_OPEN.test(lines[next]!)) return;
  keep.add(next);
  // A docstring whose first line holds only its quotes: its text starts on the line after.
  if (/^\s*[rRuUbB]{0,2}("""|''')\s*$/.test(lines[next]!) && next + 1 < lines.length) keep.add(next + 1);
}

/** Brackets a line opens minus those it closes (strings and comments are not told apart: a signature is rarely fooled). */
function openBrackets(line: string): number {
  let depth = 0;
  for (const char of line) {
    if (char === "(" || char === "[") depth++;
    else if (char === ")" || char === "]") depth--;
  }
  return depth;
}

/** The kept lines in order, each run of left-out lines that is not all blank as one `...` at the indentation of its first line with text. */
function renderKept(lines: string[], keep: Set<number>): string {
  const out: string[] = [];
  let skipped: string | null = null;
  lines.forEach((line, i) => {
    if (keep.has(i)) {
      if (skipped !== null) out.push(`${skipped}...`);
      skipped = null;
      out.push(line.trimEnd());
    } else if (skipped === null && line.trim() !== "") {
      skipped = /^\s*/.exec(line)![0];
    }
  });
  if (skipped !== null) out.push(`${skipped}...`);
  return out.join("\n");
}

/** An outline cut to {@link OUTLINE_CHARS}, the names defined in what is cut listed instead. */
function clipOutline(outline: string, path: string): string {
  if (outline.length <= OUTLINE_CHARS) return outline;
  const cut = outline.lastIndexOf("\n", OUTLINE_CHARS);
  const head = outline.slice(0, cut > 0 ? cut : OUTLINE_CHARS);
  const rest = outline.slice(head.length);
  const names = extractDefinitions(rest, path).slice(0, 120);
  return `${head}\n… (the outline goes on${names.length ? `; the rest defines: ${names.join(", ")}` : ""})`;
}
