import type { ServeRole } from "../jobs/job-queue.js";
import { escapeHtml } from "../lib/escape-html.js";
import { projectDocs } from "../lib/project-docs.js";

/** What GET / says of the process: its role, and where GitHub's webhooks go (none for a worker). */
export interface FrontPage {
  role: ServeRole;
  /** The path GitHub POSTs its signed webhooks to; absent in a worker, which takes none. */
  webhookPath?: string;
}

/** The endpoints every role serves, and what each answers. */
const ENDPOINTS: [string, string][] = [
  ["/healthz", "ok while the process runs"],
  ["/readyz", "200 when it can do its work (the store, the queue, the model endpoint), else 503 saying what is not"],
  ["/metrics", "Prometheus metrics (jobs, webhooks, model usage)"],
];

/**
 * The answer of GET /: what this server is, with links to its endpoints, as a short HTML page for a browser
 * (`accept` naming text/html) and as JSON for anything else (curl, a script).
 */
export function renderFrontPage(page: FrontPage, accept: string | undefined): { contentType: string; body: string } {
  const webhooks = page.webhookPath
    ? `POST ${page.webhookPath}: GitHub's webhooks, signed with WEBHOOK_SECRET`
    : "none: a worker runs jobs and takes no webhook";
  const docs = projectDocs("app.md");
  if (!accept?.includes("text/html")) {
    const body = {
      name: "MAGIS",
      what: "a GitHub App that resolves issues with a team of LLM agents",
      role: page.role,
      webhooks,
      endpoints: Object.fromEntries(ENDPOINTS),
      docs,
    };
    return { contentType: "application/json", body: `${JSON.stringify(body, null, 2)}\n` };
  }
  const rows = ENDPOINTS.map(([path, what]) => `<li><a href="${path}">${path}</a>: ${escapeHtml(what)}</li>`).join("\n");
  const body = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>MAGIS (${page.role})</title></head>
<body>
<h1>MAGIS</h1>
<p>A GitHub App that resolves issues with a team of LLM agents. This process runs in the role <b>${page.role}</b>.</p>
<p>Webhooks: ${escapeHtml(webhooks)}.</p>
<ul>
${rows}
</ul>
<p>How to run it: <a href="${escapeHtml(docs)}">${escapeHtml(docs)}</a></p>
</body></html>
`;
  return { contentType: "text/html; charset=utf-8", body };
}
