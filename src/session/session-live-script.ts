import { hasEnded } from "./page/entries-of.js";
import { guardPart } from "./page/guard-part.js";
import { PART, type SessionPageOptions } from "./page/page-options.js";
import { renderSessionEntry } from "./page/render-entry.js";
import { renderHeader } from "./page/render-header.js";
import { renderResult } from "./page/render-result.js";
import { renderSteering } from "./page/render-steering.js";
import { renderTimeline } from "./page/render-timeline.js";
import { renderTotals } from "./page/render-totals.js";
import type { SessionOutcome, StoredSessionEntry } from "./types.js";

export { hasEnded as sessionHasEnded } from "./page/entries-of.js";

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
  return eventMessage({ seq: entry.seq, ...(row ? { row } : {}), parts, ended: hasEnded(upTo) });
}

/**
 * The last event of a job whose record has ended though its session holds no final outcome (a job failed as lost, its
 * worker dead, has none), or of a stream reopened after the end: the header, the steering and the timeline rendered with
 * `outcome` (what the record says) when the session has no final one of its own, and `ended`, which stops the script.
 * Its id is the session's last entry's, which the script has shown already: it applies an ended event all the same.
 */
export function sessionEndMessage(session: readonly StoredSessionEntry[], outcome: SessionOutcome, options: SessionPageOptions = {}): string {
  const ended = endedWith(session, outcome);
  const seq = session.reduce((most, entry) => Math.max(most, entry.seq), 0);
  const parts: Record<string, string> = {
    [PART.header]: guardPart(PART.header, () => renderHeader(ended, options)),
    [PART.steering]: guardPart(PART.steering, () => renderSteering(ended, options)),
    [PART.timeline]: guardPart(PART.timeline, () => renderTimeline(ended)),
  };
  return eventMessage({ seq, parts, ended: true });
}

/**
 * The session in order, ended by `outcome` (what the job's record says) unless it recorded a final outcome of its own:
 * what the page and the last event render for a job whose record ended without one (a job failed as lost). The added
 * entry takes the last entry's number and time, so that nothing the viewer has is counted twice.
 */
export function endedWith(session: readonly StoredSessionEntry[], outcome: SessionOutcome): StoredSessionEntry[] {
  const sorted = [...session].sort((a, b) => a.seq - b.seq);
  if (hasEnded(sorted)) return sorted;
  const last = sorted.at(-1);
  return [...sorted, { kind: "outcome", data: outcome, seq: last?.seq ?? 0, at: last?.at ?? 0 }];
}

/**
 * What an earlier entry must still hold for the parts sessionEventMessage renders anew (header, steering, timeline,
 * totals; the result part is rendered from the result entry itself), or null when they need none of it. A model
 * call keeps its figures, not its messages and answer; the first entry stays, for the time the job began. A stream
 * keeps these instead of every entry it read.
 */
export function keptForParts(entry: StoredSessionEntry, first: boolean): StoredSessionEntry | null {
  if (entry.kind === "model-call") return { ...entry, data: { ...entry.data, messages: [], raw: null, parsed: null } };
  return first || PART_KINDS.has(entry.kind) ? entry : null;
}

const PART_KINDS: ReadonlySet<StoredSessionEntry["kind"]> = new Set(["job", "stage", "outcome", "plan-wait", "steer", "question"]);

function eventMessage(data: SessionEventData): string {
  // JSON.stringify writes no raw newline, so the data is one `data:` line; U+2028/2029 are escaped for old parsers.
  const json = JSON.stringify(data)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return `id: ${data.seq}\ndata: ${json}\n\n`;
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
    if (typeof data.seq !== "number") return;
    // A shown entry again (a repeat after a reconnect) is skipped, but the end is applied whatever its number.
    const fresh = data.seq > last;
    if (!fresh && !data.ended) return;
    if (fresh) { last = data.seq; root.dataset.lastSeq = String(last); }
    for (const id of Object.keys(data.parts || {})) {
      const old = document.getElementById(id);
      if (old) old.replaceWith(fragment(data.parts[id]));
    }
    if (fresh && data.row) {
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
