import { AGENTS } from "../../config.js";
import { codeCell, table } from "../../lib/markdown.js";
import { dollarsOf, formatDollars, type ModelPrices } from "../../llm/prices.js";
import type { UsageReport } from "../types.js";

/**
 * The report's usage table: calls and tokens per agent and in all, and, where the operator's price table knows an
 * agent's model, its dollars. The total's dollars are shown only when every agent that made calls has a price: a sum
 * that leaves some out would read as the whole cost. Without a single price there is no cost column.
 */
export function renderUsage(usage: UsageReport, prices: ModelPrices | undefined): string {
  const { byAgent, calls, wallMs } = usage;
  const dollars = AGENTS.map((agent) => dollarsOf(byAgent[agent], byAgent[agent].model, prices));
  const priced = dollars.some((usd) => usd !== undefined);
  const rows = AGENTS.map((agent, i) => {
    const a = byAgent[agent];
    const usd = dollars[i];
    const row = [agent, `\`${codeCell(a.model)}\``, String(a.calls), String(a.promptTokens), String(a.completionTokens), String(a.totalTokens)];
    return priced ? [...row, usd === undefined ? "" : formatDollars(usd)] : row;
  });
  const total = AGENTS.reduce((sum, agent) => sum + byAgent[agent].totalTokens, 0);
  const whole = AGENTS.every((agent, i) => byAgent[agent].calls === 0 || dollars[i] !== undefined);
  const totalRow = ["**total**", "", String(calls), "", "", String(total)];
  const totalUsd = dollars.reduce<number>((sum, usd) => sum + (usd ?? 0), 0);
  rows.push(priced ? [...totalRow, whole ? `**${formatDollars(totalUsd)}**` : ""] : totalRow);
  const header = ["Agent", "Model", "Calls", "Prompt tokens", "Completion tokens", "Total tokens", ...(priced ? ["Cost"] : [])];
  return [table(header, rows), "", `Wall time: ${(wallMs / 1000).toFixed(1)} s`].join("\n");
}
