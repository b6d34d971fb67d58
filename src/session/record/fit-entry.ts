import { redactSecrets } from "../../lib/redact-secrets.js";
import type { SessionEntry } from "../types.js";
import { boundText } from "./bound-text.js";

/** How much of an entry is kept, in characters of its JSON. */
export interface EntryBounds {
  /** Any one string (a prompt's message, an answer, a diff, a file's text). */
  stringChars: number;
  /** The whole entry's data; the result's patch may take all of it. */
  entryChars: number;
}

/** An entry as it goes to the store: its data redacted and bounded, and as JSON text. */
export interface FittedEntry {
  kind: SessionEntry["kind"];
  json: string;
}

// Strings are never cut below this: an entry still over its bound with every string this short is left out instead.
const MIN_STRING_CHARS = 256;
const MAX_DEPTH = 40;

/**
 * Redacts every string of an entry (keys too: a model's parsed answer is any JSON) with the job's secrets, and cuts the
 * long ones (see boundText) to fit the entry's bound: each string first to `stringChars`, then, while the entry is still
 * over `entryChars`, every string to one shorter length, so that short fields (paths, verdicts, roles) stay whole and
 * the long ones share the room. An entry that cannot fit so (thousands of short strings) becomes a `note` saying what
 * was left out, never a half entry the page could misread.
 */
export function fitEntry(entry: SessionEntry, secrets: readonly (string | undefined)[], bounds: EntryBounds): FittedEntry {
  const redacted = mapStrings(entry.data, (text) => redactSecrets(text, secrets));
  // The result's patch is what a reader of the session most wants whole: it may take the entry's room.
  const capOf = (path: string) => (entry.kind === "result" && path === "patch" ? bounds.entryChars : bounds.stringChars);
  // Every string's cap is its own (capOf) times one scale, lowered while the entry is over its bound.
  let scale = 1;
  for (;;) {
    const data = mapStrings(redacted, (text, path) => boundText(text, Math.max(MIN_STRING_CHARS, Math.floor(capOf(path) * scale))));
    const json = JSON.stringify(data) ?? "null";
    if (json.length <= bounds.entryChars) return { kind: entry.kind, json };
    if (scale * bounds.stringChars <= MIN_STRING_CHARS) break;
    // Lower by what the entry is over, and by a quarter at least, so that escapes (a control character takes six) end it soon.
    scale = Math.min(scale * 0.75, (scale * bounds.entryChars) / json.length);
  }
  const note = {
    text: `A ${entry.kind} entry was left out: even cut down, it was over the ${bounds.entryChars.toLocaleString("en-US")} characters an entry may hold.`,
  };
  return { kind: "note", json: JSON.stringify(note) };
}

/** A copy of a JSON value with `map` applied to every string (and key); `path` names a top-level field's strings. */
function mapStrings(value: unknown, map: (text: string, path: string) => string, path = "", depth = 0): unknown {
  if (typeof value === "string") return map(value, path);
  // Deeper than any answer's schema goes: a cycle, or a model's answer built to be deep.
  if (depth > MAX_DEPTH) return "[nested too deep]";
  if (Buffer.isBuffer(value)) return map(value.toString("utf8"), path);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map, path, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[map(key, "")] = mapStrings(item, map, path || key, depth + 1);
    return out;
  }
  return value;
}
