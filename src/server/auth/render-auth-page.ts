import { escapeHtml } from "../../lib/escape-html.js";

/** A page that says why a sign-in stopped: a title, a sentence, and where to go next. */
export interface AuthPage {
  title: string;
  message: string;
  link?: { href: string; text: string };
}

/** The Content-Security-Policy of the sign-in's pages: nothing but their own inline style, no script at all. */
export const AUTH_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The sign-in's own small page (a refused state, GitHub's refusal), every piece of text escaped. */
export function renderAuthPage(page: AuthPage): string {
  const link = page.link ? `<p><a href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.text)}</a></p>` : "";
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(page.title)} · MAGIS</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}</style></head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.message)}</p>
${link}
</body>
</html>
`;
}
