import { unwrapData } from "../../llm/mark-data.js";
import { loadPrompt } from "../../llm/prompts.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const matchers = new Map<string, { pattern: RegExp; names: string[] }>();

/**
 * The variables a rendered user message of prompt `name` was filled with, read back through the prompt file's own
 * template (its text between placeholders must match exactly); null when the message is not of that template.
 * Anything after the template (the plain-JSON-mode instruction) is ignored; a data variable comes back without its tags.
 */
export function readPromptVars(name: string, message: string): Record<string, string> | null {
  const { pattern, names } = matcherFor(name);
  const match = pattern.exec(message);
  if (!match) return null;
  const vars: Record<string, string> = {};
  names.forEach((variable, i) => (vars[variable] ??= unwrapData(match[i + 1]!)));
  return vars;
}

function matcherFor(name: string): { pattern: RegExp; names: string[] } {
  const known = matchers.get(name);
  if (known) return known;
  const template = loadPrompt(name).user;
  const names: string[] = [];
  let source = "^";
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    source += escape(template.slice(last, m.index));
    const seen = names.indexOf(m[1]!);
    // A variable used twice is the same text both times.
    source += seen === -1 ? "([\\s\\S]*?)" : `\\${seen + 1}`;
    if (seen === -1) names.push(m[1]!);
    last = m.index + m[0].length;
  }
  source += escape(template.slice(last));
  const made = { pattern: new RegExp(source), names };
  matchers.set(name, made);
  return made;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
