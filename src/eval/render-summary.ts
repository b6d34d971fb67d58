import { AGENTS } from "../config.js";
import { formatDollars } from "../llm/prices.js";
import type { EvalResult, OracleLoss, PromptTokens } from "./types.js";

/** What the summary says besides the results: the run's model and data, how many instances it has, and its own wall time. */
export interface SummaryContext {
  model: string;
  data: string;
  /** Instances selected for the run (done or not). */
  total: number;
  /** Wall time of this invocation, which `--resume` may continue. */
  wallMs: number;
  /** Absolute path of predictions.jsonl, for the harness command. */
  predictions: string;
  oracle: boolean;
}

// MAGIS (GPT-4) on its SWE-bench subset, Table 2 of the paper; it reports line coverage as a distribution (Fig. 5), not a mean.
const PAPER = { applied: 97.39, resolved: 13.94 };

/** summary.md: totals and ratios, per repository, beside the paper's figures, failures by stage, and how to score the predictions. */
export function renderSummary(results: EvalResult[], context: SummaryContext): string {
  const lines = [
    context.oracle ? "# magis eval --oracle: what the pipeline loses with a perfect model" : "# magis eval",
    "",
    ...(context.oracle
      ? [
          "**Oracle run.** Every model answer came from the instance's gold patch (files, tasks, line ranges, code; QA approves). It measures what",
          "the pipeline itself loses on real repositories with a perfect model. It is not a resolve rate.",
          "",
        ]
      : []),
    `Model: \`${context.model}\` · data: \`${context.data}\` · ${results.length} of ${context.total} instances done · this run's wall time: ${formatDuration(context.wallMs)}`,
    "",
    "## Totals",
    "",
    "| measure | value |",
    "| --- | --- |",
    ...totalRows(results),
    "",
    "## Per repository",
    "",
    "| repository | instances | patch | applies | Eq. 1 coverage | recall (kept) | tokens | wall time |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...repositoryRows(results),
    "",
    ...promptSection(results),
    "## Beside the MAGIS paper",
    "",
    `| | ${context.oracle ? "this oracle run" : "this run"} | MAGIS paper (GPT-4, its SWE-bench subset, Table 2) |`,
    "| --- | ---: | ---: |",
    `| applied ratio | ${percent(
      count(results, (r) => r.applies === true),
      results.length,
    )} | ${PAPER.applied} % |`,
    `| resolved ratio | ${context.oracle ? "not measured (oracle)" : "score predictions.jsonl (below)"} | ${PAPER.resolved} % |`,
    `| Eq. 1 line coverage | mean ${meanPercent(results.map((r) => (r.patch ? (r.coverage ?? 0) : 0)))} | a distribution (Fig. 5), most instances near 1; no mean given |`,
    "",
    ...costSection(results),
    ...failureSection(results),
    ...(context.oracle ? lossSection(results) : []),
    ...(context.oracle ? oracleScoringSection() : harnessSection(context.predictions)),
  ];
  return lines.join("\n");
}

/** How to get the resolved ratio: the SWE-bench harness on this run's predictions. */
function harnessSection(predictions: string): string[] {
  return [
    "## Score it with SWE-bench",
    "",
    "The resolved ratio needs the repositories' tests, which the SWE-bench harness runs in Docker:",
    "",
    "```sh",
    "pip install swebench",
    `python -m swebench.harness.run_evaluation --dataset_name princeton-nlp/SWE-bench_Lite --split test \\`,
    `  --predictions_path ${predictions} --max_workers 4 --run_id magis-eval`,
    "```",
    "",
    "Use the dataset your `--data` came from as `--dataset_name` (`princeton-nlp/SWE-bench` for the full set). Instances without a",
    "patch have an empty `model_patch`, so the harness counts them as unresolved.",
    "",
  ];
}

/** Why an oracle run's predictions are not scored: they are the gold patches, so the harness would measure the gold patches. */
function oracleScoringSection(): string[] {
  return [
    "## Not for the SWE-bench harness",
    "",
    "This run's `predictions.jsonl` holds the gold patches as the pipeline carried them through: the harness would score the gold",
    "patches, not MAGIS. For a resolved ratio, run `magis eval` without `--oracle`, with a model, and score that run's predictions as",
    "its summary shows.",
    "",
  ];
}

function totalRows(results: EvalResult[]): string[] {
  const n = results.length;
  const patched = results.filter((r) => r.patch);
  const tokens = AGENTS.map((agent) => `${agent} ${formatTokens(sum(results, (r) => r.tokens[agent].total))}`).join(", ");
  const priced = results.filter((r) => r.cost_usd !== undefined);
  // A sum that leaves instances out says so: it is not the run's whole cost.
  const partly = priced.length < n ? ` (the ${priced.length} of ${n} instances whose models all have a price)` : "";
  const cost = priced.length > 0 ? [`| cost | ${formatDollars(sum(priced, (r) => r.cost_usd!))}${partly} |`] : [];
  return [
    `| instances | ${n} |`,
    `| with a patch | ${percent(patched.length, n)} |`,
    `| patch applies (applied ratio) | ${percent(
      count(results, (r) => r.applies === true),
      n,
    )} |`,
    `| Eq. 1 line coverage, mean over all (no patch = 0) | ${meanPercent(results.map((r) => (r.patch ? (r.coverage ?? 0) : 0)))} |`,
    `| Eq. 1 line coverage, mean over those with a patch | ${meanPercent(patched.map((r) => r.coverage ?? 0))} |`,
    `| file recall of the located files (BM25 top k) | ${meanPercent(results.map((r) => r.recall_located))} |`,
    `| file recall of the kept files (after the relevance check) | ${meanPercent(results.map((r) => r.recall_kept))} |`,
    `| failed, by stage | ${describeStages(results) || "none"} |`,
    `| asked a clarifying question instead (results.jsonl \`question\`) | ${count(results, (r) => r.question !== undefined)} |`,
    `| model calls | ${sum(results, (r) => r.calls)} |`,
    `| tokens | ${formatTokens(sum(results, (r) => AGENTS.reduce((t, a) => t + r.tokens[a].total, 0)))} (${tokens}) |`,
    ...cost,
    ...candidateRows(results),
    ...environmentRows(results),
    `| wall time of the instances, summed | ${formatDuration(sum(results, (r) => r.wall_ms))} |`,
  ];
}

/** With environments: how many became ready (built or reused), the median seconds to ready, and how many failed. */
function environmentRows(results: EvalResult[]): string[] {
  const made = results.filter((r) => r.environment);
  if (made.length === 0) return [];
  const ready = made.filter((r) => r.environment!.ready);
  const reused = ready.filter((r) => r.environment!.how === "reused").length;
  const times = ready.map((r) => r.environment!.seconds).sort((a, b) => a - b);
  const median = times.length === 0 ? "—" : `${times[Math.floor((times.length - 1) / 2)]!} s`;
  return [
    `| environment ready | ${ready.length} of ${made.length} (${reused} reused); median ${median} to ready |`,
    ...(ready.length < made.length ? [`| environment not ready | ${made.length - ready.length} (results.jsonl \`environment.failed\` says why) |`] : []),
  ];
}

/** With candidates over 1: how many were sampled and grouped, and in how many instances the gold change was among them. */
function candidateRows(results: EvalResult[]): string[] {
  const sampled = results.filter((r) => r.candidates);
  if (sampled.length === 0) return [];
  const judged = sampled.filter((r) => r.candidates!.gold_equivalent !== undefined);
  return [
    `| candidates sampled, distinct groups | ${sum(sampled, (r) => r.candidates!.sampled)}, ${sum(sampled, (r) => r.candidates!.groups)} (${sampled.length} instances) |`,
    `| a gold-equivalent candidate among them | ${percent(
      count(judged, (r) => r.candidates!.gold_equivalent === true),
      judged.length,
    )} |`,
  ];
}

function repositoryRows(results: EvalResult[]): string[] {
  const repos = [...new Set(results.map((r) => r.repo))].sort();
  return repos.map((repo) => {
    const mine = results.filter((r) => r.repo === repo);
    const n = mine.length;
    return `| ${repo} | ${n} | ${count(mine, (r) => r.patch)} | ${percent(
      count(mine, (r) => r.applies === true),
      n,
    )} | ${meanPercent(mine.map((r) => (r.patch ? (r.coverage ?? 0) : 0)))} | ${meanPercent(mine.map((r) => r.recall_kept))} | ${formatTokens(sum(mine, (r) => AGENTS.reduce((t, a) => t + r.tokens[a].total, 0)))} | ${formatDuration(sum(mine, (r) => r.wall_ms))} |`;
  });
}

/**
 * Calls and tokens per prompt over the run, the costliest first, and what each costs an instance on average (over all
 * instances, those that never asked it included); nothing when no result holds the split (results from before it was kept).
 */
function promptSection(results: EvalResult[]): string[] {
  const split = results.filter((r) => r.by_prompt);
  if (split.length === 0) return [];
  const totals = new Map<string, PromptTokens>();
  for (const result of split) {
    for (const [prompt, used] of Object.entries(result.by_prompt!)) {
      const entry = totals.get(prompt) ?? { agent: used.agent, prompt: 0, completion: 0, total: 0, calls: 0 };
      entry.calls += used.calls;
      entry.prompt += used.prompt;
      entry.completion += used.completion;
      entry.total += used.total;
      totals.set(prompt, entry);
    }
  }
  const rows = [...totals].sort(([a, x], [b, y]) => y.total - x.total || a.localeCompare(b));
  const n = split.length;
  const partly = n < results.length ? ` Over the ${n} of ${results.length} instances whose results hold the split.` : "";
  return [
    "## Tokens by prompt",
    "",
    `Summed over the instances; "an instance" divides by the ${n} instances.${partly}`,
    "",
    "| prompt | agent | calls | prompt tokens | completion tokens | tokens | calls an instance | tokens an instance |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      ([prompt, t]) =>
        `| ${prompt} | ${t.agent} | ${t.calls} | ${formatTokens(t.prompt)} | ${formatTokens(t.completion)} | ${formatTokens(t.total)} | ${(t.calls / n).toFixed(1)} | ${formatTokens(Math.round(t.total / n))} |`,
    ),
    allRow([...totals.values()], n),
    "",
  ];
}

/** The last row of the prompt table: every prompt's calls and tokens together. */
function allRow(prompts: PromptTokens[], n: number): string {
  const of = (field: "calls" | "prompt" | "completion" | "total") => prompts.reduce((total, p) => total + p[field], 0);
  return `| all | | ${of("calls")} | ${formatTokens(of("prompt"))} | ${formatTokens(of("completion"))} | ${formatTokens(of("total"))} | ${(of("calls") / n).toFixed(1)} | ${formatTokens(Math.round(of("total") / n))} |`;
}

/** Each instance's dollars, where its models have prices (MAGIS_MODEL_PRICES, --prices); nothing when none has. */
function costSection(results: EvalResult[]): string[] {
  if (!results.some((r) => r.cost_usd !== undefined)) return [];
  return [
    "## Cost per instance",
    "",
    "| instance | model calls | tokens | cost |",
    "| --- | ---: | ---: | ---: |",
    ...results.map(
      (r) =>
        `| ${r.instance_id} | ${r.calls} | ${formatTokens(AGENTS.reduce((t, a) => t + r.tokens[a].total, 0))} | ${r.cost_usd === undefined ? "no price" : formatDollars(r.cost_usd)} |`,
    ),
    "",
  ];
}

function failureSection(results: EvalResult[]): string[] {
  const failed = results.filter((r) => r.failure);
  if (failed.length === 0) return [];
  return [
    "## Failures",
    "",
    "| instance | stage | reason |",
    "| --- | --- | --- |",
    // As on the progress line, an input failure says in full what to mend.
    ...failed.map((r) => `| ${r.instance_id} | ${r.failure!.stage} | ${cell(r.failure!.reason, r.failure!.stage === "input" ? Infinity : 300)} |`),
    "",
  ];
}

/**
 * Where the oracle's gold patch was lost, the pipeline's losses apart from the instrument's (the oracle, the metric),
 * each by cause, and how many gold patches `git apply` places off their headers' lines.
 */
function lossSection(results: EvalResult[]): string[] {
  const losses = results.flatMap((r) => (r.losses ?? []).map((loss) => ({ ...loss, instance: r.instance_id })));
  const offset = results.filter((r) => (r.gold_offsets ?? []).length > 0);
  const byCause = (by: OracleLoss["by"], title: string, none: string): string[] => {
    const mine = losses.filter((l) => l.by === by);
    const causes = [...new Set(mine.map((l) => l.cause))].sort();
    const ids = new Set(mine.map((l) => l.instance));
    return [
      `### ${title}: ${ids.size} of ${results.length} instances`,
      "",
      ...(mine.length === 0
        ? [none, ""]
        : [
            "| cause | instances | which |",
            "| --- | ---: | --- |",
            ...causes.map((cause) => {
              const which = [...new Set(mine.filter((l) => l.cause === cause).map((l) => l.instance))];
              return `| ${cause} | ${which.length} | ${which.join(", ")} |`;
            }),
            "",
          ]),
    ];
  };
  return [
    "## Where the oracle's gold patch was lost, by cause",
    "",
    ...byCause("pipeline", "Losses of the pipeline", "None: wherever the oracle could answer, the pipeline carried the gold patch through."),
    ...byCause("instrument", "Losses of the instrument (the oracle, the metric)", "None."),
    `Gold patches whose hunks \`git apply\` finds off their headers' lines (the oracle placed them there): ${offset.length} of ${results.length}` +
      (offset.length === 0
        ? "."
        : ` (${offset.map((r) => `${r.instance_id} ${r.gold_offsets!.map((o) => `${o.file} hunk ${o.hunk} ${o.offset > 0 ? "+" : ""}${o.offset}`).join(", ")}`).join("; ")}).`),
    "",
    ...(losses.length === 0
      ? []
      : [
          "| instance | file | by | cause | detail |",
          "| --- | --- | --- | --- | --- |",
          ...losses.map((l) => `| ${l.instance} | ${l.file} | ${l.by} | ${l.cause} | ${cell(l.detail, 300)} |`),
          "",
        ]),
  ];
}

/** `locate 3, code 1`: how many instances failed in each stage. */
function describeStages(results: EvalResult[]): string {
  const byStage = new Map<string, number>();
  for (const r of results) if (r.failure) byStage.set(r.failure.stage, (byStage.get(r.failure.stage) ?? 0) + 1);
  return [...byStage].map(([stage, n]) => `${stage} ${n}`).join(", ");
}

/** A table cell: one line, pipes escaped, at most `max` characters. */
function cell(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const sum = (results: EvalResult[], of: (r: EvalResult) => number) => results.reduce((total, r) => total + of(r), 0);
const count = (results: EvalResult[], test: (r: EvalResult) => boolean) => results.filter(test).length;

/** `12 of 30 (40.0 %)`. */
function percent(part: number, whole: number): string {
  return whole === 0 ? `${part} of 0` : `${part} of ${whole} (${((100 * part) / whole).toFixed(1)} %)`;
}

function meanPercent(values: number[]): string {
  return values.length === 0 ? "n/a" : `${((100 * values.reduce((a, b) => a + b, 0)) / values.length).toFixed(1)} %`;
}

/** `12.3k`, `2.49M` tokens. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** `2m 05s`, `41s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
