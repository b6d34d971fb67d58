import { withoutThinkDraft } from "./without-think-draft.js";

/** The outcome of reading JSON out of a model's answer: the value, or why none could be read. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: string };

// Bounds the scan of bracket positions so a long answer full of braces (code) stays linear-ish.
const MAX_BRACKET_STARTS = 200;

/**
 * Reads the JSON value out of a model answer that may wrap it: code fences, leading or trailing
 * prose, a `<think>` draft before it. Tries the whole text, then each fenced block, then every balanced
 * object or array from left to right; the first that parses and that `accept` takes wins. When
 * none is accepted, the first that parses is returned, so the caller can report why it is wrong.
 */
export function parseJsonLeniently(answer: string, accept: (value: unknown) => boolean = () => true): ParsedJson {
  const text = withoutThinkDraft(answer).trim();
  if (text === "") return { ok: false, error: "the answer was empty; expected one JSON object" };
  let firstParsed: { value: unknown } | undefined;
  let firstError: string | undefined;
  for (const candidate of candidates(text)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch (error) {
      firstError ??= error instanceof Error ? error.message : String(error);
      continue;
    }
    if (accept(value)) return { ok: true, value };
    firstParsed ??= { value };
  }
  if (firstParsed) return { ok: true, value: firstParsed.value };
  return {
    ok: false,
    error: firstError ? `the answer holds no valid JSON (${firstError})` : "the answer holds no JSON object or array; expected one JSON object",
  };
}

function* candidates(text: string): Generator<string> {
  // The whole text only counts when it looks like JSON, so the error reported for prose is "no JSON".
  if (text.startsWith("{") || text.startsWith("[")) yield text;
  for (const match of text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g)) yield match[1]!.trim();
  let starts = 0;
  for (let start = 0; start < text.length && starts < MAX_BRACKET_STARTS; start++) {
    const c = text[start];
    if (c !== "{" && c !== "[") continue;
    starts++;
    const end = balancedEnd(text, start);
    if (end !== -1) yield text.slice(start, end + 1);
  }
}

/** Index of the bracket closing the one at `start`, skipping brackets inside strings; -1 if unbalanced. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
