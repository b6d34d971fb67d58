import { dollarsOf, type ModelPrices } from "../../llm/prices.js";
import type { SessionEntry } from "../types.js";

/**
 * An entry with its cost in dollars where the operator's price table knows it: a model call's own, and the result's in
 * all when every model the run used has a price (a sum that left one out would read as the whole cost).
 */
export function priceEntry(entry: SessionEntry, prices: ModelPrices | undefined): SessionEntry {
  if (!prices || prices.size === 0) return entry;
  if (entry.kind === "model-call" && entry.data.usd === undefined) {
    const usd = dollarsOf(entry.data, entry.data.model, prices);
    return usd === undefined ? entry : { kind: "model-call", data: { ...entry.data, usd } };
  }
  if (entry.kind === "result" && entry.data.usd === undefined) {
    let usd = 0;
    for (const usage of Object.values(entry.data.usage.byAgent)) {
      if (usage.calls === 0) continue;
      const cost = dollarsOf(usage, usage.model, prices);
      if (cost === undefined) return entry;
      usd += cost;
    }
    return { kind: "result", data: { ...entry.data, usd } };
  }
  return entry;
}
