import type { Usage } from "./types.js";

/** One model's price in US dollars per million tokens, as the operator sets it (MAGIS_MODEL_PRICES). */
export interface ModelPrice {
  prompt: number;
  completion: number;
}

/** The operator's price table: by model name, exactly as the model is named to the endpoint. */
export type ModelPrices = ReadonlyMap<string, ModelPrice>;

/** How a price table is written, for messages and help: one place, so every refusal shows the same example. */
export const PRICES_FORMAT =
  "MODEL=PROMPT/COMPLETION entries separated by commas, in US dollars per million tokens, e.g. gpt-4o=2.50/10.00,gpt-4o-mini=0.15/0.60";

/** Dollars that `usage` of `model` cost, or undefined when the table has no price for the model. */
export function dollarsOf(usage: Pick<Usage, "promptTokens" | "completionTokens">, model: string, prices: ModelPrices | undefined): number | undefined {
  const price = prices?.get(model);
  if (!price) return undefined;
  return (usage.promptTokens * price.prompt + usage.completionTokens * price.completion) / 1_000_000;
}

/**
 * A dollar amount as people write one (3, 0.15, .15, 2.50), or undefined: Number alone would also take '', 0x10, 1e3
 * and Infinity, none of which is a price anyone meant.
 */
export function readDollars(raw: string): number | undefined {
  return /^\s*(?:\d+(?:\.\d*)?|\.\d+)\s*$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Reads a price table: `MODEL=PROMPT/COMPLETION` entries separated by commas (blank: no prices). The model is what
 * comes before the entry's last `=`, so names such as `meta-llama/Llama-3.1-70B` or `qwen2.5:7b` need no quoting. A
 * bad entry, or a model named twice, throws an error that names `source`, quotes the entry and shows the format.
 */
export function parseModelPrices(text: string, source = "MAGIS_MODEL_PRICES"): ModelPrices {
  const prices = new Map<string, ModelPrice>();
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue;
    const equals = entry.lastIndexOf("=");
    const model = entry.slice(0, Math.max(0, equals)).trim();
    const [prompt, completion, ...more] = entry.slice(equals + 1).split("/");
    const promptUsd = readDollars(prompt ?? "");
    const completionUsd = readDollars(completion ?? "");
    if (equals < 0 || model === "" || more.length > 0 || promptUsd === undefined || completionUsd === undefined) {
      throw new Error(`${source} holds '${entry.trim()}', which is not a price: write ${PRICES_FORMAT}`);
    }
    if (prices.has(model)) throw new Error(`${source} prices ${model} twice: keep one entry for it (${PRICES_FORMAT})`);
    prices.set(model, { prompt: promptUsd, completion: completionUsd });
  }
  return prices;
}

/** A US dollar amount as messages and reports show it: cents, and four digits under a cent, so a cheap run never reads $0.00. */
export function formatDollars(usd: number): string {
  if (usd === 0 || usd >= 0.01) return `$${usd.toFixed(2)}`;
  return usd >= 0.0001 ? `$${usd.toFixed(4)}` : "under $0.0001";
}
