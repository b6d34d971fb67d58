import { escapeHtml } from "../../lib/escape-html.js";

// Characters that would act rather than show: C0 and C1 controls (but tab and newline), bidi overrides and isolates
// (which reorder what a reader sees, as in "Trojan Source"), zero-width and invisible characters, the BOM, and lone
// surrogates. Each is shown as its code point in a marked span, so the page says it is there and nothing acts on it.
const INERT =
  // eslint-disable-next-line no-control-regex -- control and invisible characters are what it marks
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` as HTML a browser shows and never interprets: escaped, with control and invisible characters shown as their
 * code points, and cut to `maxChars` (head kept) with a note of how much was left out.
 */
export function showText(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  const cut = text.length > maxChars;
  const kept = cut ? text.slice(0, maxChars) : text;
  const shown = escapeHtml(kept).replace(INERT, (char) => `<span class="ctl">U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}</span>`);
  return cut ? `${shown}<span class="cut">… ${(text.length - maxChars).toLocaleString("en")} more characters not shown</span>` : shown;
}

/** A JSON value (a parsed answer) shown indented, bounded like any text. */
export function showJson(value: unknown, maxChars: number): string {
  return showText(JSON.stringify(value, null, 2) ?? "undefined", maxChars);
}
