import type { ServerResponse } from "node:http";
import { escapeHtml } from "../../lib/escape-html.js";
import { SESSION_PAGE_STYLE_HASH } from "../../session/render-session-page.js";

/**
 * What every answer of the session pages carries. The page shows a repository's code and a model's words: no script
 * but this server's, no style but the page's own (by its hash), nothing fetched from elsewhere, never framed, no
 * referrer beyond this site, and kept by no cache (it changes as the job runs, and it is for one viewer).
 */
export const SESSION_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${SESSION_PAGE_STYLE_HASH}`,
    "img-src 'self' data:",
    // The live script's EventSource reads this server's events.
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** Sends a whole HTML answer with the session headers. */
export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { ...SESSION_HEADERS, "content-type": "text/html; charset=utf-8" }).end(html);
}

/** Sends a redirect (302 to sign in, 303 back to the page after a form) with the session headers. */
export function sendRedirect(response: ServerResponse, status: 302 | 303, location: string): void {
  response.writeHead(status, { ...SESSION_HEADERS, location, "content-type": "text/plain; charset=utf-8" }).end(`See ${location}\n`);
}

/**
 * A short page that says what happened and what to do, in the page's own style rules (none: it has no <style>, so
 * the policy's hash need not match). Both strings are plain text, escaped here.
 */
export function sendMessage(response: ServerResponse, status: number, title: string, text: string): void {
  sendHtml(
    response,
    status,
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`,
  );
}

/**
 * The one answer for a job that does not exist and for a job the viewer may not see: the same status and the same
 * words, so that nobody learns which jobs exist in repositories they cannot read.
 */
export function sendNotFound(response: ServerResponse): void {
  sendMessage(
    response,
    404,
    "Not found",
    "There is no job here that you can see. If it is a job of a repository you can read, check the link, or sign in as another user.",
  );
}
