import { parseModelPrices, PRICES_FORMAT, readDollars, type ModelPrices } from "../../llm/prices.js";
import type { Reader, SettingRow } from "./define-setting.js";

const MODEL_READERS: readonly Reader[] = ["worker", "action", "cli", "eval"];
// The web role shows the session pages, with their dollars.
const PRICE_READERS: readonly Reader[] = ["web", ...MODEL_READERS];
const NO_PRICES: ModelPrices = new Map();
// The row kinds of define-setting read words and whole numbers; these two read a table and dollars, so they are written out.
const modelRow = <const K extends string, T>(row: SettingRow<"model", K, T>): SettingRow<"model", K, T> => row;

/** The operator's prices and cost bound: what a job's dollars are counted in and kept under. Read with the model's rows. */
export const COST_ROWS = [
  modelRow({
    part: "model",
    key: "prices",
    name: "MAGIS_MODEL_PRICES",
    readers: PRICE_READERS,
    shape: PRICES_FORMAT,
    fallbackText: "no prices: tokens are shown without dollars",
    about:
      "What each model costs, prompt and completion in US dollars per million tokens: the PR's usage table, the session page and `magis eval` show dollars where a model has a price, and cost_budget_usd needs one for every model of the job.",
    checked: true,
    unsetValue: NO_PRICES,
    read: (env) => (env.MAGIS_MODEL_PRICES ? parseModelPrices(env.MAGIS_MODEL_PRICES) : NO_PRICES),
  }),
  modelRow({
    part: "model",
    key: "maxCostUsd",
    name: "MAGIS_MAX_COST_USD",
    readers: MODEL_READERS,
    shape: "US dollars, more than 0",
    fallbackText: "no bound: a job's dollars are kept only by the repository's cost_budget_usd",
    about:
      "Most US dollars one job may spend, at MAGIS_MODEL_PRICES: the call that would pass it is not made; a repository's cost_budget_usd may only lower it.",
    checked: true,
    unsetValue: undefined as number | undefined,
    read: (env) => readMaxCost(env.MAGIS_MAX_COST_USD),
  }),
] as const;

function readMaxCost(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const usd = readDollars(raw);
  if (usd === undefined || usd <= 0) {
    throw new Error(`MAGIS_MAX_COST_USD is '${raw}', which is not an amount of dollars: set it to one such as 0.50 or 5, or leave it unset for no bound`);
  }
  return usd;
}
