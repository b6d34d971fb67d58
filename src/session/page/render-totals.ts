import { AGENTS } from "../../config.js";
import type { StoredSessionEntry } from "../types.js";
import { entriesOf } from "./entries-of.js";
import { formatCount, formatDollars, formatDuration } from "./format.js";
import { PART, type SessionPageOptions } from "./page-options.js";
import { callDollars } from "./render-model-call.js";
import { showText } from "./show-text.js";

interface Tally {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  usd: number;
  /** Calls whose model has no price: the dollars above leave them out. */
  unpriced: number;
}

const empty = (): Tally => ({ calls: 0, promptTokens: 0, completionTokens: 0, ms: 0, usd: 0, unpriced: 0 });

/** Calls, tokens, model time and dollars per agent and in all, from the session's model calls. */
export function renderTotals(session: readonly StoredSessionEntry[], options: SessionPageOptions): string {
  const byAgent = new Map<string, Tally>(AGENTS.map((agent) => [agent, empty()]));
  const all = empty();
  for (const { data: call } of entriesOf(session, "model-call")) {
    const usd = callDollars(call, options.prices);
    for (const tally of [byAgent.get(call.agent) ?? byAgent.set(call.agent, empty()).get(call.agent)!, all]) {
      tally.calls += 1;
      tally.promptTokens += call.promptTokens;
      tally.completionTokens += call.completionTokens;
      tally.ms += call.ms;
      if (usd === undefined) tally.unpriced += 1;
      else tally.usd += usd;
    }
  }
  const row = (name: string, tally: Tally) =>
    `<tr><td>${name}</td><td class="n">${formatCount(tally.calls)}</td><td class="n">${formatCount(tally.promptTokens)}</td><td class="n">${formatCount(tally.completionTokens)}</td><td class="n">${formatCount(tally.promptTokens + tally.completionTokens)}</td><td class="n">${formatDuration(tally.ms)}</td><td class="n">${dollars(tally)}</td></tr>`;
  const rows = [...byAgent].filter(([, tally]) => tally.calls > 0).map(([agent, tally]) => row(showText(agent, 40), tally));
  return `<section id="${PART.totals}"><h2>Tokens and cost</h2><table class="totals"><tr><th>Agent</th><th>Calls</th><th>Prompt tokens</th><th>Completion tokens</th><th>Tokens</th><th>Model time</th><th>Dollars</th></tr>${rows.join("")}${row("<b>All</b>", all)}</table></section>`;
}

function dollars(tally: Tally): string {
  if (tally.calls === 0) return "—";
  if (tally.unpriced === tally.calls) return `<span class="meta">no price</span>`;
  const note = tally.unpriced ? ` <span class="meta">(${tally.unpriced} call${tally.unpriced === 1 ? "" : "s"} without a price)</span>` : "";
  return `${formatDollars(tally.usd)}${note}`;
}
