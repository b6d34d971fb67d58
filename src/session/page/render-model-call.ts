import { dollarsOf, type ModelPrices } from "../../llm/prices.js";
import type { ModelCallEntry } from "../types.js";
import { formatCount, formatDollars, formatDuration } from "./format.js";
import { showJson, showText } from "./show-text.js";

/** How much of each message, the raw answer and the parsed answer the page shows (the recorder bounds them too). */
const MESSAGE_CHARS = 12_000;

/** Dollars of one call: as recorded, or from the page's price table when the recorder had none. */
export function callDollars(call: ModelCallEntry, prices: ModelPrices | undefined): number | undefined {
  return call.usd ?? dollarsOf(call, call.model, prices);
}

/** One model call, collapsed: its prompt file and hash, model, tokens, time and dollars; open, the messages and answers. */
export function renderModelCall(call: ModelCallEntry, prices: ModelPrices | undefined): string {
  const usd = callDollars(call, prices);
  const facts = [
    `<b>${showText(call.prompt, 200)}</b> <code title="prompt file hash">${showText(call.promptHash.slice(0, 12), 12)}</code>`,
    showText(call.model, 200),
    `${formatCount(call.promptTokens)} + ${formatCount(call.completionTokens)} tokens`,
    formatDuration(call.ms),
    ...(usd === undefined ? [] : [formatDollars(usd)]),
    ...(call.choice === undefined ? [] : [`choice ${call.choice}`]),
    ...(call.error ? [`<span class="error">error</span>`] : []),
  ];
  const messages = call.messages.map(
    (message, index) =>
      `<details class="message"><summary>${index + 1}. ${showText(message.role, 40)} <span class="meta">(${formatCount(message.content.length)} characters)</span></summary><pre>${showText(message.content, MESSAGE_CHARS)}</pre></details>`,
  );
  const error = call.error ? `<p class="error">${showText(call.error, 4000)}</p>` : "";
  const raw = call.raw === null ? `<p class="meta">No answer.</p>` : `<pre>${showText(call.raw, MESSAGE_CHARS)}</pre>`;
  const parsed =
    call.parsed === undefined || call.parsed === null
      ? ""
      : `<details><summary>Parsed answer</summary><pre>${showJson(call.parsed, MESSAGE_CHARS)}</pre></details>`;
  return `<details class="call"><summary>${facts.join(" · ")}</summary><p class="meta">Prompt <code>${showText(call.prompt, 200)}.md</code>, hash <code>${showText(call.promptHash, 100)}</code></p>${error}<h4>Messages</h4>${messages.join("")}<h4>Raw answer</h4>${raw}${parsed}</details>`;
}
