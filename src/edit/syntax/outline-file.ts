import { parseDefinitions, type Definition } from "./parse-definitions.js";

/** Most characters of an outline in a prompt: about 1,500 tokens, a fraction of what the file itself takes. */
export const MAX_OUTLINE_CHARS = 6_000;

/** What a prompt shows for a file without definitions to outline. */
export const NO_OUTLINE = "(no outline: no classes or functions found)";

function describe(definition: Definition): string {
  const lines = definition.line === definition.endLine ? `line ${definition.line}` : `lines ${definition.line}-${definition.endLine}`;
  return `${definition.kind === "name" ? `${definition.signature} = …` : definition.signature}  (${lines})`;
}

/**
 * A file's skeleton for a prompt, as Agentless compresses files: its classes, functions, methods and
 * top-level names, each as its signature with its line range, nested by indentation, without the
 * functions defined inside functions; cut at `maxChars` with a count of what is left out. A note says
 * when there is none (a language without a shipped grammar, or a file that defines nothing).
 */
export async function outlineFile(text: string, path: string, maxChars: number = MAX_OUTLINE_CHARS): Promise<string> {
  const definitions = (await parseDefinitions(text, path)) ?? [];
  const shown: string[] = [];
  // The definitions enclosing the current one (pre-order: outer first), to indent and to skip local functions.
  const open: Definition[] = [];
  for (const definition of definitions) {
    while (open.length > 0 && open[open.length - 1]!.endLine < definition.line) open.pop();
    const local = open.some((outer) => outer.kind === "function" || outer.kind === "method");
    open.push(definition);
    if (!local) shown.push(`${"  ".repeat(open.length - 1)}${describe(definition)}`);
  }
  if (shown.length === 0) return NO_OUTLINE;
  let length = 0;
  let fit = 0;
  while (fit < shown.length && length + shown[fit]!.length + 1 <= maxChars) length += shown[fit++]!.length + 1;
  return fit < shown.length ? [...shown.slice(0, fit), `… (${shown.length - fit} more definitions not shown)`].join("\n") : shown.join("\n");
}
