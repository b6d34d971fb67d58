import type { StoredSessionEntry } from "../types.js";
import { lastOf } from "./entries-of.js";
import { formatDollars } from "./format.js";
import { PART } from "./page-options.js";
import { renderDiff } from "./render-diff.js";
import { renderEnvironment } from "./render-environment.js";

/** The run's change as one patch, and the environment its commands ran in; empty until the result is recorded. */
export function renderResult(session: readonly StoredSessionEntry[]): string {
  const result = lastOf(session, "result")?.data;
  if (!result) return `<section id="${PART.result}"></section>`;
  const usd = result.usd === undefined ? "" : `<p>The run cost ${formatDollars(result.usd)} in all.</p>`;
  const environment = result.environment ? `<h3>Environment</h3>${renderEnvironment(result.environment)}` : "";
  return `<section id="${PART.result}"><h2>The change</h2>${renderDiff(result.patch)}${usd}${environment}</section>`;
}
