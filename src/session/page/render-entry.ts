import type { StoredSessionEntry } from "../types.js";
import { formatCount, formatTime } from "./format.js";
import { LIST, type SessionPageOptions } from "./page-options.js";
import { renderCommand } from "./render-run.js";
import { renderModelCall } from "./render-model-call.js";
import { renderProgress } from "./render-progress.js";
import { showText } from "./show-text.js";

/** An entry as a row of one of the page's lists: the list's id and the row's HTML (escaped here, from the entry alone). */
export interface EntryRow {
  list: string;
  html: string;
}

/**
 * The row an entry adds to the page — a model call to its agent's conversation, a command to the commands, a progress
 * event or a note to the work — or null for the entries shown through the page's parts (job, stages, outcome, steering,
 * result). The page and the live script insert the same rows.
 */
export function renderSessionEntry(entry: StoredSessionEntry, options: SessionPageOptions = {}): EntryRow | null {
  const row = (list: string, body: string) => ({
    list,
    html: `<li id="entry-${entry.seq}" data-seq="${entry.seq}"><span class="meta">${formatTime(entry.at)}</span> ${body}</li>`,
  });
  try {
    return entryRow(entry, options, row);
  } catch (error) {
    // An entry of another version's shape, or a damaged one, costs its own row and not the page.
    const why = error instanceof Error ? error.message : String(error);
    return row(LIST.work, `<p class="error">Entry ${entry.seq} (${showText(String(entry.kind), 40)}) could not be shown: ${showText(why, 500)}</p>`);
  }
}

function entryRow(entry: StoredSessionEntry, options: SessionPageOptions, row: (list: string, body: string) => EntryRow): EntryRow | null {
  switch (entry.kind) {
    case "model-call":
      return row(LIST.calls(entry.data.agent), renderModelCall(entry.data, options.prices));
    case "command":
      return row(LIST.commands, renderCommand(entry.data));
    case "progress":
      return row(LIST.work, renderProgress(entry.data));
    case "note":
      return row(LIST.work, `<p>${showText(entry.data.text, 8000)}</p>`);
    case "truncated":
      return row(
        LIST.work,
        `<p class="cut">The session reached its bound of ${formatCount(entry.data.limitBytes)} bytes here: after this, only stages, steering, the result and the outcome were recorded.</p>`,
      );
    default:
      return null;
  }
}
