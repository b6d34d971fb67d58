import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { changedLines } from "../../edit/changed-lines.js";
import { parseDefinitions, type Definition } from "../../edit/syntax/parse-definitions.js";
import { namesIn } from "../../edit/syntax/outline-file.js";
import { resolveInside } from "../../lib/safe-path.js";
import type { StageContext } from "../types.js";

/** Most definitions whose uses are looked up for one prompt, and most uses shown of each: a prompt stays short. */
const MAX_DEFINITIONS = 4;
const MAX_USES = 12;
const MAX_LINE_CHARS = 160;
// An import names a definition without calling it: a new signature does not change it.
const IMPORT = /^(?:from\s+\S+\s+import\b|import\b|export\s+(?:\*|\{[^}]*\})\s+from\b)/;

/** One place that uses a definition: the file, the 1-based line, and that line's code. */
interface Use {
  path: string;
  line: number;
  code: string;
}

/** Where `definition` (of `file`, whose text is `text`) is used, or why that is not known. */
async function usesOf(ctx: StageContext, file: string, text: string, definition: Definition): Promise<Use[] | { why: string }> {
  const lines = text.split("\n");
  const name = new RegExp(`(?<![\\w$])${definition.name.replace(/[$]/g, "\\$")}(?![\\w$])`);
  // The name in its header, past decorators: the position the server is asked about.
  let position: { line: number; character: number } | null = null;
  for (let line = definition.line - 1; line < Math.min(definition.endLine, definition.line + 10); line++) {
    const found = lines[line] !== undefined && !lines[line]!.trimStart().startsWith("@") ? name.exec(lines[line]!) : null;
    if (found) {
      position = { line, character: found.index };
      break;
    }
  }
  if (!position) return { why: "its name was not found in its header" };
  const found = await ctx.languageServers!.references(file, text, position);
  if (!Array.isArray(found)) return found;
  const uses: Use[] = [];
  const texts = new Map<string, string[] | null>([[file, lines]]);
  for (const location of found) {
    const relative = path.relative(ctx.root, fileURLToPath(location.uri)).split(path.sep).join("/");
    if (relative.startsWith("..") || path.isAbsolute(relative)) continue;
    if (!texts.has(relative)) texts.set(relative, readLines(ctx, relative));
    const code = texts.get(relative)?.[location.range.start.line]?.trim() ?? "";
    if (IMPORT.test(code)) continue;
    uses.push({ path: relative, line: location.range.start.line + 1, code: code.length > MAX_LINE_CHARS ? `${code.slice(0, MAX_LINE_CHARS)}…` : code });
  }
  return uses;
}

function readLines(ctx: StageContext, file: string): string[] | null {
  try {
    const { absolute } = resolveInside(ctx.root, file);
    if (fs.statSync(absolute).size > ctx.config.max_file_bytes) return null;
    return fs.readFileSync(absolute, "utf8").split("\n");
  } catch {
    return null;
  }
}

function renderUses(uses: Use[], note: (use: Use) => string = () => ""): string[] {
  const shown = uses.slice(0, MAX_USES).map((u) => `- ${u.path}:${u.line}: ${u.code}${note(u)}`);
  return uses.length > MAX_USES ? [...shown, `- … and ${uses.length - MAX_USES} more`] : shown;
}

/**
 * For the Developer: where the definitions of `file` that the task or the issue names as code are used, so that a change
 * of a signature comes with its callers (MarsCode §3.2). A note when there is nothing to show.
 */
export async function describeCallersForTask(ctx: StageContext, file: string, text: string, naming: string[]): Promise<string> {
  if (!ctx.languageServers) return "(not looked up: no language server runs here)";
  const named = namesIn(...naming);
  const definitions = ((await parseDefinitions(text, file)) ?? []).filter((d) => d.kind !== "name" && named.get(d.name) === 2).slice(0, MAX_DEFINITIONS);
  if (definitions.length === 0) return "(none: the task names no class or function of this file)";
  const parts: string[] = [];
  for (const definition of definitions) {
    const uses = await usesOf(ctx, file, text, definition);
    const head = `\`${definition.name}\` (line ${definition.line})`;
    if (!Array.isArray(uses)) parts.push(`${head}: uses not known (${uses.why})`);
    else if (uses.length === 0) parts.push(`${head}: no uses found`);
    else parts.push([`${head} is used at:`, ...renderUses(uses)].join("\n"));
  }
  return parts.join("\n");
}

/** What QA is told when no definition's header changed. */
export const NO_CHANGED_HEADERS = "(none: this change alters no class or function header of the file)";

/**
 * For the QA Engineer: the definitions whose header (name, parameters) the change alters or removes, and each use of
 * them, saying which the change did not update: a caller left behind by a signature change is broken code.
 */
export async function describeCallersOfChange(ctx: StageContext, file: string, before: string, after: string): Promise<string> {
  if (!ctx.languageServers) return "(not looked up: no language server runs here)";
  const was = (await parseDefinitions(before, file)) ?? [];
  const is = new Map(((await parseDefinitions(after, file)) ?? []).map((d) => [`${d.parent ?? ""}.${d.name}`, d.signature]));
  const changed = was.filter((d) => d.kind !== "name" && is.get(`${d.parent ?? ""}.${d.name}`) !== d.signature).slice(0, MAX_DEFINITIONS);
  if (changed.length === 0) return NO_CHANGED_HEADERS;
  const parts: string[] = [];
  for (const definition of changed) {
    const now = is.get(`${definition.parent ?? ""}.${definition.name}`);
    const head = now === undefined ? `\`${definition.name}\` is removed or renamed` : `The header of \`${definition.name}\` changes to \`${now}\``;
    const uses = await usesOf(ctx, file, before, definition);
    if (!Array.isArray(uses)) parts.push(`${head}; its uses are not known (${uses.why}).`);
    else if (uses.length === 0) parts.push(`${head}; no uses found.`);
    else {
      const changed = changedLines(before, after, "old");
      const stale = (u: Use) => u.path !== file || !changed.has(u.line);
      const note = (u: Use) =>
        u.path !== file ? " — NOT UPDATED (this task does not change that file)" : stale(u) ? " — NOT UPDATED by this change" : " — changed by this change";
      const count = uses.filter(stale).length;
      parts.push([`${head}. Its uses (lines as before the change)${count > 0 ? `, ${count} not updated` : ""}:`, ...renderUses(uses, note)].join("\n"));
    }
  }
  return parts.join("\n\n");
}
