import { escapeHtml } from "../../lib/escape-html.js";
import type { StoredSessionEntry } from "../types.js";
import { entriesOf, hasEnded, lastOf } from "./entries-of.js";
import { formatDuration } from "./format.js";
import { PART } from "./page-options.js";
import { showText } from "./show-text.js";

/** One stage's stretch of time: when it started after the job's first entry, and how long it took (absent: still running). */
export interface StageSpan {
  name: string;
  startMs: number;
  durationMs?: number;
}

/** Stage spans from the `stage` entries: each end closes the latest open start of the same name. */
export function stageSpans(session: readonly StoredSessionEntry[]): StageSpan[] {
  const origin = session[0]?.at ?? 0;
  const spans: (StageSpan & { at: number })[] = [];
  for (const entry of entriesOf(session, "stage")) {
    if (entry.data.state === "started") {
      spans.push({ name: entry.data.name, startMs: entry.at - origin, at: entry.at });
      continue;
    }
    const open = [...spans].reverse().find((span) => span.name === entry.data.name && span.durationMs === undefined);
    if (open) open.durationMs = entry.at - open.at;
    else spans.push({ name: entry.data.name, startMs: entry.at - origin, durationMs: 0, at: entry.at });
  }
  return spans.map(({ name, startMs, durationMs }) => (durationMs === undefined ? { name, startMs } : { name, startMs, durationMs }));
}

/** The timeline: each stage with when it began, its duration (a bar against the whole job) or that it is running. */
export function renderTimeline(session: readonly StoredSessionEntry[]): string {
  const spans = stageSpans(session);
  const ended = hasEnded(session);
  const last = session.at(-1)?.at ?? 0;
  const total = Math.max(1, last - (session[0]?.at ?? 0));
  const rows = spans.map((span) => {
    const running = span.durationMs === undefined;
    // A stage left open when the job ended did not finish: it stopped with the job.
    const duration = running ? (ended ? "stopped with the job" : "running") : formatDuration(span.durationMs!);
    const length = running ? total - span.startMs : span.durationMs!;
    // An attribute takes escaped text only: showText's marks are elements, which would end the attribute.
    return `<tr data-stage="${escapeHtml(span.name.slice(0, 100))}"><td class="stage">${showText(span.name, 100)}</td><td class="n">+${formatDuration(span.startMs)}</td><td class="n">${duration}</td><td><meter min="0" max="${total}" value="${Math.max(0, length)}"></meter></td></tr>`;
  });
  const outcome = lastOf(session, "outcome");
  const whole = ended && outcome ? `<p>The job took ${formatDuration(total)}.</p>` : "";
  const body = rows.length
    ? `<table class="timeline"><tr><th>Stage</th><th>Began</th><th>Took</th><th></th></tr>${rows.join("")}</table>`
    : `<p class="meta">No stage has begun.</p>`;
  return `<section id="${PART.timeline}"><h2>Timeline</h2>${body}${whole}</section>`;
}
