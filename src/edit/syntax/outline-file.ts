import { parseDefinitions, type Definition } from "./parse-definitions.js";

/** Most characters of an outline in a prompt: about 1,500 tokens, a fraction of what the file itself takes. */
export const MAX_OUTLINE_CHARS = 6_000;

/** What a prompt shows for a file without definitions to outline. */
export const NO_OUTLINE = "(no outline: no classes or functions found)";

function describe(definition: Definition): string {
  const lines = definition.line === definition.endLine ? `line ${definition.line}` : `lines ${definition.line}-${definition.endLine}`;
  return `${definition.kind === "name" ? `${definition.signature} = …` : definition.signature}  (${lines})`;
}

/** A shown line of an outline: its text, its name, its depth of nesting and lines, and the row it is nested in. */
interface Row {
  text: string;
  name: string;
  depth: number;
  line: number;
  endLine: number;
  parent: number | null;
}

/** Indentation stops deepening here: classes nested thousands deep (generated code) would fill a prompt with spaces. */
const MAX_INDENT = 12;

function indent(depth: number): string {
  return "  ".repeat(Math.min(depth, MAX_INDENT));
}

/** How surely a text names something in code: 2 written as code, 1 a plain word that may be a name. */
export type NamedWords = Map<string, 1 | 2>;

/**
 * The words of texts, case kept, each with how surely it names code: 2 for a word in backticks, in a
 * chain (`Context.quantize`, `Server::close`), before `(`, or shaped like an identifier (`merge_rows`,
 * `iterContent`, `utf8`); 1 for any other word ("quantize", "get", "value"), which prose uses as often.
 */
export function namesIn(...texts: string[]): NamedWords {
  const names: NamedWords = new Map();
  const note = (word: string, sureness: 1 | 2) => {
    if ((names.get(word) ?? 0) < sureness) names.set(word, sureness);
  };
  for (const text of texts) {
    for (const span of text.matchAll(/`([^`\n]+)`/g)) for (const word of span[1]!.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) note(word[0], 2);
    for (const match of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
      const word = match[0];
      const before = text.slice(Math.max(0, match.index - 2), match.index);
      const after = text.slice(match.index + word.length, match.index + word.length + 2);
      const chained = /(?:\.|::)$/.test(before) || /^(?:\.[A-Za-z_]|::|\()/.test(after);
      note(word, chained || /_|[a-z][A-Z]|\d/.test(word) ? 2 : 1);
    }
  }
  return names;
}

/** The outline of the chosen rows in file order, a line saying how many were left out, and where, in each gap. */
function render(rows: Row[], chosen: (index: number) => boolean): string {
  const out: string[] = [];
  let gap: { count: number; depth: number; from: number; to: number } | null = null;
  const flush = () => {
    if (!gap) return;
    out.push(`${indent(gap.depth)}… (${gap.count} more definition${gap.count === 1 ? "" : "s"}, lines ${gap.from}-${gap.to})`);
    gap = null;
  };
  rows.forEach((row, index) => {
    if (chosen(index)) {
      flush();
      out.push(row.text);
    } else if (gap) {
      gap.count++;
      gap.depth = Math.min(gap.depth, row.depth);
      gap.to = Math.max(gap.to, row.endLine);
    } else {
      gap = { count: 1, depth: row.depth, from: row.line, to: row.endLine };
    }
  });
  flush();
  return out.join("\n");
}

/**
 * A file's skeleton for a prompt, as Agentless compresses files: its classes, functions, methods and
 * top-level names, each as its signature with its line range, nested by indentation, without the
 * functions defined inside functions. A skeleton longer than `maxChars` keeps, in this order, the
 * definitions named in `names` (the words of the issue and the task; those written as code first) with what they are nested in,
 * then the top-level ones, then the rest, each in file order, and says in each gap how many it left
 * out and on which lines: a large file's method the issue names is shown even when it is far down.
 * A note says when there is none (a language without a shipped grammar, or a file that defines nothing).
 */
export async function outlineFile(
  text: string,
  path: string,
  { maxChars = MAX_OUTLINE_CHARS, names = new Map() }: { maxChars?: number; names?: NamedWords } = {},
): Promise<string> {
  const definitions = (await parseDefinitions(text, path)) ?? [];
  const rows: Row[] = [];
  // The definitions enclosing the current one (pre-order: outer first), to indent and to skip local functions:
  // while a function is open, what it holds is local, and every open definition has a row of its own.
  const open: Array<{ endLine: number; row: number | null; isFunction: boolean }> = [];
  let functionsOpen = 0;
  for (const definition of definitions) {
    while (open.length > 0 && open[open.length - 1]!.endLine < definition.line) if (open.pop()!.isFunction) functionsOpen--;
    const isFunction = definition.kind === "function" || definition.kind === "method";
    let row: number | null = null;
    if (functionsOpen === 0) {
      row = rows.length;
      const parent = open.length > 0 ? open[open.length - 1]!.row : null;
      rows.push({
        text: `${indent(open.length)}${describe(definition)}`,
        name: definition.name,
        depth: open.length,
        line: definition.line,
        endLine: definition.endLine,
        parent,
      });
    }
    open.push({ endLine: definition.endLine, row, isFunction });
    if (isFunction) functionsOpen++;
  }
  if (rows.length === 0) return NO_OUTLINE;
  const whole = rows.map((row) => row.text).join("\n");
  if (whole.length <= maxChars) return whole;
  // The rows named as code, then those named by a plain word, each with the rows they are nested in, in file
  // order; then the top level; then the rest.
  const namedAt = (sureness: 1 | 2) => {
    const named = new Set<number>();
    rows.forEach((row, index) => {
      if (names.get(row.name) !== sureness) return;
      for (let at: number | null = index; at !== null && !named.has(at); at = rows[at]!.parent) named.add(at);
    });
    return [...named].sort((a, b) => a - b);
  };
  const topLevel = rows.flatMap((row, index) => (row.depth === 0 ? [index] : []));
  const order = [...new Set([...namedAt(2), ...namedAt(1), ...topLevel, ...rows.keys()])];
  // The most rows, taken in that order, whose outline (gap lines included) fits: found by halving, as a longer
  // prefix gives a longer outline but for the odd gap line it closes.
  const place = new Array<number>(rows.length);
  order.forEach((row, at) => (place[row] = at));
  const outlineOf = (count: number) => render(rows, (index) => place[index]! < count);
  let fits = 0;
  let fails = order.length;
  while (fails - fits > 1) {
    const middle = (fits + fails) >> 1;
    if (outlineOf(middle).length <= maxChars) fits = middle;
    else fails = middle;
  }
  return outlineOf(fits);
}
