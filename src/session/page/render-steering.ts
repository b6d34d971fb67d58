import { escapeHtml } from "../../lib/escape-html.js";
import type { StoredSessionEntry } from "../types.js";
import { entriesOf, hasEnded, lastOf } from "./entries-of.js";
import { formatTime } from "./format.js";
import { PART, type SessionPageOptions } from "./page-options.js";
import { showText } from "./show-text.js";

/**
 * What a person may do about the job and what was done: the plan waiting for approval with the Go button, the Stop
 * button while the job runs, a question the Manager asked, and who steered it so far.
 */
export function renderSteering(session: readonly StoredSessionEntry[], options: SessionPageOptions): string {
  const ended = hasEnded(session);
  const parts: string[] = [];
  const wait = lastOf(session, "plan-wait");
  const steers = entriesOf(session, "steer");
  if (wait) {
    const answered = steers.some((steer) => steer.seq > wait.seq);
    const waiting = !answered && !ended;
    const state = waiting
      ? `The plan waits for approval until ${formatTime(wait.data.until)}.`
      : answered
        ? "The plan was answered."
        : "The plan was not approved.";
    const go =
      waiting && options.actions?.goUrl
        ? form(
            options.actions.goUrl,
            options.actions.csrfToken,
            `<label>Guidance (optional) <input name="guidance" maxlength="2000"></label> <button type="submit" name="action" value="go">Go</button>`,
          )
        : "";
    parts.push(
      `<div class="${waiting ? "waiting" : "plan"}"><h3>Plan for approval</h3><p>${state}</p><pre>${showText(wait.data.summary, 20_000)}</pre>${go}</div>`,
    );
  }
  for (const { data: question } of entriesOf(session, "question")) {
    parts.push(`<div class="waiting"><h3>A question for @${showText(question.author, 100)}</h3><pre>${showText(question.question, 8000)}</pre></div>`);
  }
  if (steers.length) {
    const rows = steers.map(({ data: steer, at }) => {
      const guidance = steer.guidance ? `: ${showText(steer.guidance, 2000)}` : "";
      return `<li>${steer.action === "go" ? "Approved" : "Stopped"} by @${showText(steer.by, 100)} from the ${steer.via === "page" ? "page" : "issue"} at ${formatTime(at)}${guidance}</li>`;
    });
    parts.push(`<ul class="rows">${rows.join("")}</ul>`);
  }
  if (!ended && options.actions?.stopUrl)
    parts.push(form(options.actions.stopUrl, options.actions.csrfToken, `<button type="submit" name="action" value="stop">Stop the job</button>`));
  return `<section id="${PART.steering}">${parts.length ? `<h2>Steering</h2>${parts.join("")}` : ""}</section>`;
}

function form(action: string, csrf: string, controls: string): string {
  return `<form class="steer" method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">${controls}</form>`;
}
