import { parseDefinitions, type Definition } from "./parse-definitions.js";

/** Most characters of an outline in a prompt: about 1,500 tokens, a fraction of what the file itself takes. */
export const MAX_OUTLINE_CHARS = 6_000;

/** What a prompt shows for a file without definitions to outline. */
export const NO_OUTLINE = "(no outline: no classes or functions found)";

function describe(definition: Definition): string {
  const lines = definition.line === definition.endLine ? `line ${definition.line}` : `lines ${definition.line}-${definition.endLine}`;
  return `${definition.kind === "name" ? `${definition.signature} = …` : definition.signature}  (${lines})`;
}

/** A shown line of an outline: its text, its depth of nesting, and the rows it is nested in. */
interface Row {
  text: string;
  name: string;
  depth: number;
  line: number;
  endLine: number;
  ancestors: number[];
}

/** The names a text uses as code might: words of letters, digits and underscores, case kept. */
export function namesIn(...texts: string[]): Set<string> {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) names.add(match[0]);
  return names;
}

/** The outline of the chosen rows in file order, a line saying how many were left out, and where, in each gap. */
function render(rows: Row[], chosen: Set<number>): string {
  const out: string[] = [];
  let skipped: Row[] = [];
  const flush = () => {
    if (skipped.length === 0) return;
    const depth = Math.min(...skipped.map((row) => row.depth));
    const from = skipped[0]!.line;
    const to = Math.max(...skipped.map((row) => row.endLine));
    out.push(`${"  ".repeat(depth)}… (${skipped.length} more definition${skipped.length === 1 ? "" : "s"}, lines ${from}-${to})`);
    skipped = [];
  };
  rows.forEach((row, index) => {
    if (!chosen.has(index)) return void skipped.push(row);
    flush();
    out.push(row.text);
  });
  flush();
  return out.join("\n");
}

/**
 * A file's skeleton for a prompt, as Agentless compresses files: its classes, functions, methods and
 * top-level names, each as its signature with its line range, nested by indentation, without the
 * functions defined inside functions. A skeleton longer than `maxChars` keeps, in this order, the
 * definitions named in `names` (the words of the issue and the task) with what they are nested in,
 * then the top-level ones, then the rest, each in file order, and says in each gap how many it left
 * out and on which lines: a large file's method the issue names is shown even when it is far down.
 * A note says when there is none (a language without a shipped grammar, or a file that defines nothing).
 */
export async function outlineFile(
  text: string,
  path: string,
  { maxChars = MAX_OUTLINE_CHARS, names = new Set<string>() }: { maxChars?: number; names?: Set<string> } = {},
): Promise<string> {
  const definitions = (await parseDefinitions(text, path)) ?? [];
  const rows: Row[] = [];
  // The definitions enclosing the current one (pre-order: outer first), to indent and to skip local functions.
  const open: Array<{ definition: Definition; row: number | null }> = [];
  for (const definition of definitions) {
    while (open.length > 0 && open[open.length - 1]!.definition.endLine < definition.line) open.pop();
    const local = open.some((outer) => outer.definition.kind === "function" || outer.definition.kind === "method");
    const ancestors = open.flatMap((outer) => (outer.row === null ? [] : [outer.row]));
    const row = local ? null : rows.length;
    if (!local) rows.push({ text: `${"  ".repeat(open.length)}${describe(definition)}`, name: definition.name, depth: open.length, line: definition.line, endLine: definition.endLine, ancestors });
    open.push({ definition, row });
  }
  if (rows.length === 0) return NO_OUTLINE;
  const whole = rows.map((row) => row.text).join("\n");
  if (whole.length <= maxChars) return whole;
  const named = rows.flatMap((row, index) => (names.has(row.name) ? [...row.ancestors, index] : []));
  const topLevel = rows.flatMap((row, index) => (row.depth === 0 ? [index] : []));
  const order = [...new Set([...named.sort((a, b) => a - b), ...topLevel, ...rows.keys()])];
  // Rows are taken while their text fits, and the last taken given back while the gaps' lines overflow.
  const chosen: number[] = [];
  let length = 0;
  for (const index of order) {
    if (length + rows[index]!.text.length + 1 > maxChars) continue;
    chosen.push(index);
    length += rows[index]!.text.length + 1;
  }
  let outline = render(rows, new Set(chosen));
  while (outline.length > maxChars && chosen.length > 0) {
    chosen.pop();
    outline = render(rows, new Set(chosen));
  }
  return outline;
}
