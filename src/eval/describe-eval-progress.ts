import { AGENTS } from "../config.js";
import { formatDuration, formatTokens } from "./render-summary.js";
import type { EvalResult } from "./types.js";

/** Where a run stands after an instance: that instance, all results so far, how many there are in all, and time spent by this invocation. */
export interface EvalProgress {
  result: EvalResult;
  results: EvalResult[];
  total: number;
  /** Instances this invocation finished (the others came from an earlier run), for the time estimate. */
  finishedHere: number;
  elapsedMs: number;
}

/**
 * The line printed after each instance: what it produced, then the run so far (applied and recall so far; whether
 * anything is resolved is for the SWE-bench harness to say), tokens, elapsed and an estimate of what is left.
 */
export function describeEvalProgress(p: EvalProgress): string {
  const r = p.result;
  // An input failure is the user's to mend and says how (every place a mirror was looked for): it is shown whole.
  const outcome = r.failure
    ? `no patch (${r.failure.stage}: ${oneLine(r.failure.reason, r.failure.stage === "input" ? Infinity : 120)})`
    : `patch ${r.applies ? "applies" : "does not apply"}, coverage ${r.coverage === null ? "n/a" : `${Math.round(100 * r.coverage)}%`}`;
  const tokens = (x: EvalResult) => AGENTS.reduce((t, a) => t + x.tokens[a].total, 0);
  const done = p.results.length;
  const applied = p.results.filter((x) => x.applies === true).length;
  const mean = (of: (x: EvalResult) => number) => Math.round((100 * p.results.reduce((t, x) => t + of(x), 0)) / Math.max(1, done));
  const left = p.finishedHere > 0 ? (p.elapsedMs / p.finishedHere) * (p.total - done) : 0;
  const width = String(p.total).length;
  return (
    `[${String(done).padStart(width)}/${p.total}] ${r.instance_id}: ${outcome}, gold files ${fraction(r.recall_located, r.gold_files.length)} located ${fraction(r.recall_kept, r.gold_files.length)} kept, ${formatTokens(tokens(r))} tokens, ${formatDuration(r.wall_ms)}` +
    ` | so far: applied ${applied}/${done}, recall ${mean((x) => x.recall_located)}% located ${mean((x) => x.recall_kept)}% kept, ${formatTokens(p.results.reduce((t, x) => t + tokens(x), 0))} tokens, elapsed ${formatDuration(p.elapsedMs)}, ~${formatDuration(left)} left\n`
  );
}

/** A bar for a terminal: `[#######.............] 7/20`. */
export function renderProgressBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((width * done) / total);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
}

function fraction(share: number, of: number): string {
  return `${Math.round(share * of)}/${of}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
