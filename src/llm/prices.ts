import type { Usage } from "./types.js";

/** One model's price in US dollars per million tokens, as the operator sets it (MAGIS_MODEL_PRICES). */
export interface ModelPrice {
  prompt: number;
  completion: number;
}

/** The operator's price table: by model name, exactly as the model is named to the endpoint. */
export type ModelPrices = ReadonlyMap<string, ModelPrice>;

/** Dollars that `usage` of `model` cost, or undefined when the table has no price for the model. */
export function dollarsOf(usage: Pick<Usage, "promptTokens" | "completionTokens">, model: string, prices: ModelPrices | undefined): number | undefined {
  const price = prices?.get(model);
  if (!price) return undefined;
  return (usage.promptTokens * price.prompt + usage.completionTokens * price.completion) / 1_000_000;
}
