import { escapeHtml } from "../../lib/escape-html.js";
import { showText } from "./show-text.js";

/**
 * A link to `url` when it is an http(s) URL, else the URL as plain text: the page links only to the issue and the pull
 * request the entries name, and a `javascript:` or `data:` URL stays words.
 */
export function safeLink(url: string | undefined, label: string): string {
  if (!url) return showText(label);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${showText(label)} <span class="meta">(${showText(url, 500)})</span>`;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return `${showText(label)} <span class="meta">(${showText(url, 500)})</span>`;
  return `<a href="${escapeHtml(parsed.href)}" rel="noreferrer noopener">${showText(label)}</a>`;
}
