import { hasEnded } from "./page/entries-of.js";
import { guardPart } from "./page/guard-part.js";
import { PART, type SessionPageOptions } from "./page/page-options.js";
import { renderSessionEntry } from "./page/render-entry.js";
import { renderHeader } from "./page/render-header.js";
import { renderResult } from "./page/render-result.js";
import { renderSteering } from "./page/render-steering.js";
import { renderTimeline } from "./page/render-timeline.js";
import { renderTotals } from "./page/render-totals.js";
import type { StoredSessionEntry } from "./types.js";

/**
 * What one server-sent event of a job's stream carries (its `data`, as JSON): the entry's row for one of the page's
 * lists, and the parts of the page the entry changes, rendered anew. Everything in it is HTML made by the page's
 * renderer, which escaped every string of the entries; the script inserts it and never builds markup of its own.
 */
export interface SessionEventData {
  seq: number;
  /** The row the entry adds, and the id of the list (`<ol>`) it goes at the end of. */
  row?: { list: string; html: string };
  /** Parts of the page (by element id: `session-header`, `session-timeline`, …) replaced whole. */
  parts: Record<string, string>;
  /** The job has ended: no more entries come, and the script stops following. */
  ended: boolean;
}

/**
 * One server-sent event for `entry`: `id: <seq>` (what a reconnecting browser sends back as Last-Event-ID) and its
 * data (SessionEventData). `session` is the job's entries up to and including this one, from which the changed parts
 * (the timeline, the totals, the header, the steering) are rendered; `options` as the page was rendered with (the
 * buttons, the prices). Write the returned text to the stream as it is.
 */
export function sessionEventMessage(entry: StoredSessionEntry, session: readonly StoredSessionEntry[], options: SessionPageOptions = {}): string {
  const upTo = session.filter((one) => one.seq <= entry.seq);
  if (!upTo.some((one) => one.seq === entry.seq)) upTo.push(entry);
  upTo.sort((a, b) => a.seq - b.seq);
  const parts: Record<string, string> = {};
  const kind = entry.kind;
  if (kind === "job" || kind === "outcome") parts[PART.header] = guardPart(PART.header, () => renderHeader(upTo, options));
  if (kind === "stage" || kind === "outcome") parts[PART.timeline] = guardPart(PART.timeline, () => renderTimeline(upTo));
  if (kind === "model-call" || kind === "result") parts[PART.totals] = guardPart(PART.totals, () => renderTotals(upTo, options));
  if (kind === "plan-wait" || kind === "steer" || kind === "question" || kind === "outcome")
    parts[PART.steering] = guardPart(PART.steering, () => renderSteering(upTo, options));
  if (kind === "result") parts[PART.result] = guardPart(PART.result, () => renderResult(upTo));
  const row = renderSessionEntry(entry, options);
  const data: SessionEventData = { seq: entry.seq, ...(row ? { row } : {}), parts, ended: hasEnded(upTo) };
  // JSON.stringify writes no raw newline, so the data is one `data:` line; U+2028/2029 are escaped for old parsers.
  const json = JSON.stringify(data)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return `id: ${entry.seq}\ndata: ${json}\n\n`;
}

/**
 * The served page's script (GET live.scriptUrl): it follows the job's events (`main#session[data-events]`), appends
 * each row to its list, replaces the parts it names, and stops when the job has ended. The browser's EventSource
 * reconnects by itself with Last-Event-ID; when the stream is refused (closed for good), the script opens it again
 * after a pause, asking for the entries after the last it showed (`?after=`). HTML goes through a <template>, so
 * nothing in it runs while it is parsed.
 */
export const SESSION_LIVE_SCRIPT = `(() => {
  "use strict";
  const root = document.getElementById("session");
  if (!root || !root.dataset.events || typeof EventSource === "undefined") return;
  const status = document.getElementById("session-live");
  let last = Number(root.dataset.lastSeq || "0");
  let source = null;
  let pause = 1000;
  const say = (text) => { const node = document.getElementById("session-live"); if (node) node.textContent = text; };
  const fragment = (html) => { const template = document.createElement("template"); template.innerHTML = html; return template.content; };
  const apply = (data) => {
    if (typeof data.seq !== "number" || data.seq <= last) return;
    last = data.seq;
    root.dataset.lastSeq = String(last);
    for (const id of Object.keys(data.parts || {})) {
      const old = document.getElementById(id);
      if (old) old.replaceWith(fragment(data.parts[id]));
    }
    if (data.row) {
      const list = document.getElementById(data.row.list);
      if (list) {
        list.append(fragment(data.row.html));
        const empty = list.nextElementSibling;
        if (empty && empty.classList.contains("meta")) empty.remove();
      }
    }
    if (data.ended) { say("ended"); if (source) source.close(); source = null; }
  };
  const open = () => {
    const url = new URL(root.dataset.events, location.href);
    url.searchParams.set("after", String(last));
    source = new EventSource(url.toString());
    source.onopen = () => { pause = 1000; say("live"); };
    source.onmessage = (event) => { try { apply(JSON.parse(event.data)); } catch (error) { console.warn("session event not shown", error); } };
    source.onerror = () => {
      if (!source) return;
      if (source.readyState === EventSource.CLOSED) {
        source = null;
        say("reconnecting");
        setTimeout(open, pause);
        pause = Math.min(pause * 2, 30000);
      } else say("reconnecting");
    };
  };
  if (status) status.textContent = "live";
  open();
})();
`;
