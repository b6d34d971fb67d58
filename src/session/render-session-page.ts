import { AGENTS } from "../config.js";
import { escapeHtml } from "../lib/escape-html.js";
import { hasEnded } from "./page/entries-of.js";
import { guardPart } from "./page/guard-part.js";
import { LIST, PART, type SessionPageOptions } from "./page/page-options.js";
import { PAGE_STYLE, SESSION_PAGE_STYLE_HASH } from "./page/page-style.js";
import { renderSessionEntry } from "./page/render-entry.js";
import { renderHeader } from "./page/render-header.js";
import { renderResult } from "./page/render-result.js";
import { renderSteering } from "./page/render-steering.js";
import { renderTimeline } from "./page/render-timeline.js";
import { renderTotals } from "./page/render-totals.js";
import type { SessionJob, StoredSessionEntry } from "./types.js";

export type { SessionPageOptions } from "./page/page-options.js";
export { SESSION_PAGE_STYLE_HASH } from "./page/page-style.js";
export { renderSessionEntry } from "./page/render-entry.js";

/** Rows one list shows before it says how many more there are. */
export const ROWS_PER_LIST = 300;
/** Characters of rows the whole page holds: past it, each list says how many rows it left out. */
export const PAGE_ROW_CHARS = 3_000_000;

/**
 * A job's session as one HTML page, rendered on the server from its entries: readable without script, styled by one
 * <style> element (allowed by SESSION_PAGE_STYLE_HASH), with no asset from elsewhere. With `live`, a script of this
 * server follows the job's new entries; without it (the CLI's session.html) the page has no script at all.
 */
export function renderSessionPage(entries: readonly StoredSessionEntry[], options: SessionPageOptions = {}): string {
  const session = [...entries].sort((a, b) => a.seq - b.seq);
  const rows = new Map<string, string[]>();
  for (const entry of session) {
    const row = renderSessionEntry(entry, options);
    if (row) (rows.get(row.list) ?? rows.set(row.list, []).get(row.list)!).push(row.html);
  }
  const budget = { chars: PAGE_ROW_CHARS };
  const list = (id: string) => boundedList(id, rows.get(id) ?? [], budget);
  const others = rows.has(LIST.calls("other")) ? [`<h3>Other</h3>${list(LIST.calls("other"))}`] : [];
  const conversations = [...AGENTS.map((agent) => `<h3>${agent}</h3>${list(LIST.calls(agent))}`), ...others].join("\n");
  const lastSeq = session.at(-1)?.seq ?? 0;
  // A page rendered after the outcome has nothing to follow (its script then opens no stream).
  const live = options.live && !hasEnded(session) ? ` data-events="${escapeHtml(options.live.eventsUrl)}" data-last-seq="${lastSeq}"` : "";
  const script = options.live ? `<script src="${escapeHtml(options.live.scriptUrl)}" defer></script>` : "";
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy(options)}">
<meta name="referrer" content="same-origin">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(pageTitle(session))}</title>
<style>${PAGE_STYLE}</style>
${script}
</head>
<body><main id="session"${live}>
${guardPart(PART.header, () => renderHeader(session, options))}
${guardPart(PART.steering, () => renderSteering(session, options))}
${guardPart(PART.timeline, () => renderTimeline(session))}
${guardPart(PART.totals, () => renderTotals(session, options))}
${guardPart(PART.result, () => renderResult(session))}
<section><h2>Work</h2>${list(LIST.work)}</section>
<section><h2>Commands</h2>${list(LIST.commands)}</section>
<section><h2>Conversations</h2>
${conversations}
</section>
</main></body></html>
`;
}

/**
 * The page's own policy, as a meta element: no script but the live one, no style but the page's, nothing fetched. The
 * served page gets a header policy too; this one holds where no server sets one (session.html opened from disk).
 */
function pagePolicy(options: SessionPageOptions): string {
  const script = options.live ? "'self'" : "'none'";
  const connect = options.live ? "'self'" : "'none'";
  return `default-src 'none'; script-src ${script}; connect-src ${connect}; style-src ${SESSION_PAGE_STYLE_HASH}; img-src data:; form-action 'self'; base-uri 'none'`;
}

function pageTitle(session: readonly StoredSessionEntry[]): string {
  const job = session.find((entry) => entry.kind === "job")?.data as Partial<SessionJob> | null | undefined;
  if (typeof job?.repository !== "string") return "MAGIS session";
  return `MAGIS session: ${job.repository}${typeof job.number === "number" ? `#${job.number}` : ""}`.replace(/\s+/g, " ");
}

/** A list's rows, at most ROWS_PER_LIST and within the page's budget, with how many were left out. */
function boundedList(id: string, rows: readonly string[], budget: { chars: number }): string {
  const shown: string[] = [];
  for (const row of rows) {
    if (shown.length >= ROWS_PER_LIST || row.length > budget.chars) break;
    budget.chars -= row.length;
    shown.push(row);
  }
  const left = rows.length - shown.length;
  const more = left ? `<p class="more">${left} more not shown here (the page's bound); <code>magis session export</code> has every entry.</p>` : "";
  const empty = rows.length ? "" : `<p class="meta">None yet.</p>`;
  return `<ol class="rows" id="${escapeHtml(id)}">${shown.join("")}</ol>${more}${empty}`;
}
