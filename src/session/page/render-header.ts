import { escapeHtml } from "../../lib/escape-html.js";
import type { StoredSessionEntry } from "../types.js";
import { formatTime } from "./format.js";
import { PART, type SessionPageOptions } from "./page-options.js";
import { currentOutcome, lastOf } from "./entries-of.js";
import { safeLink } from "./safe-link.js";
import { showText } from "./show-text.js";

/** What the session is of and how it stands: the repository, the issue (linked), the outcome, the pull request, the viewer. */
export function renderHeader(session: readonly StoredSessionEntry[], options: SessionPageOptions): string {
  const job = lastOf(session, "job")?.data;
  const outcome = currentOutcome(session)?.data;
  const what = job ? `${job.repository}${job.number === null ? "" : `#${job.number}`}` : "A job";
  const title = job?.title ? `: ${showText(job.title, 500)}` : "";
  const kind = job ? ` <span class="meta">(${showText(job.jobKind, 100)}${job.id ? `, job ${job.id}` : ""})</span>` : "";
  const state = outcome
    ? `<p>Outcome: <span class="outcome ${escapeHtml(outcome.status)}">${escapeHtml(outcome.status)}</span>${outcome.stage ? ` in ${showText(outcome.stage, 100)}` : ""}: ${showText(outcome.detail, 4000)}</p>`
    : `<p>Outcome: <span class="outcome">running</span></p>`;
  const pr = outcome?.pullRequest ? `<p>Pull request: ${safeLink(outcome.pullRequest, outcome.pullRequest)}</p>` : "";
  const started = session[0] ? `<p class="meta">Started ${formatTime(session[0].at)}</p>` : "";
  const live = options.live ? `<span id="session-live">live</span>` : "";
  return `<header id="${PART.header}">${live}${renderViewer(options)}<h1>${safeLink(job?.url, what)}${title}</h1>${kind}${state}${pr}${started}</header>`;
}

function renderViewer(options: SessionPageOptions): string {
  const viewer = options.viewer;
  if (!viewer) return "";
  const csrf = viewer.csrfToken ?? options.actions?.csrfToken ?? "";
  return `<form class="steer" method="post" action="${escapeHtml(viewer.signOutUrl)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">Signed in as <b>${showText(viewer.login, 100)}</b> <button type="submit">Sign out</button></form>`;
}
