import fs from "node:fs";
import path from "node:path";
import { mapBounded } from "../lib/map-bounded.js";
import type { ModelPrices } from "../llm/prices.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { openSqliteStore } from "../backends/sqlite/sqlite-store.js";
import { describeEvalProgress, renderProgressBar } from "./describe-eval-progress.js";
import { openEvalOutputs } from "./open-eval-outputs.js";
import { EvalInputError, isBadRecord, readInstanceRecords, type BadInstanceRecord, type BenchInstance } from "./read-instances.js";
import { selectInstances } from "./select-instances.js";
import { renderSummary } from "./render-summary.js";
import { TermMemo } from "../pipeline/index.js";
import { inputFailureResult, runEvalInstance, type InstanceRun, type InstanceSetup } from "./run-eval-instance.js";
import type { EvalResult, OracleAccount } from "./types.js";

/** One `magis eval` run: its inputs, the model per instance, and where it reports. */
export interface EvalOptions {
  data: string;
  repos: string;
  out: string;
  prepareFrom?: string;
  /** Only these instance ids, when given. */
  instances?: string[];
  limit?: number;
  concurrency: number;
  resume: boolean;
  /** Dollars per million tokens by model, for results.jsonl's and summary.md's cost. */
  prices?: ModelPrices;
  /** The model client of one instance. */
  makeLlm: InstanceSetup["makeLlm"];
  /** `model_name_or_path` of the predictions, and the model the summary names. */
  modelName: string;
  commands: CommandPolicy;
  /** The run's own credentials (the model's key), redacted from every instance's session. */
  secrets?: InstanceSetup["secrets"];
  /** Candidate changes per Developer attempt, over each checkout's config (`--candidates`). */
  candidates?: number;
  /** How each repository's instances are set up (`--environments`), over each checkout's config. */
  environments?: InstanceSetup["environments"];
  /** Set for an oracle run: every output says so, and each instance's losses are accounted for. */
  oracle?: { explainLosses: (instance: BenchInstance, run: InstanceRun) => OracleAccount };
  now: () => number;
  /** Progress lines; on a terminal, a bar below them. */
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Aborted when the run is to stop (SIGTERM, Ctrl-C): the running instances stop and are not recorded, so that a --resume runs them again. */
  signal?: AbortSignal;
}

/** What a run left: every result in the output folder (earlier runs' included), in the order they finished, of `total` selected. */
export interface EvalRunResult {
  results: EvalResult[];
  total: number;
}

/**
 * `magis eval`: runs the resolve pipeline on SWE-bench-style instances and measures each against its gold patch.
 *  1. Read the instances (a broken record is that instance's failure) and select them (--instances, --limit); a data
 *     file that holds no instances, an unknown id, or a selection of broken records alone is refused (EvalInputError).
 *  2. Open the output folder; with --resume, skip what is done there.
 *  3. Run the rest, `concurrency` at a time, with one evolution memory shared per repository.
 *  4. After each instance: its prediction and result lines, its trace, the summary, a progress line; an instance
 *     stopped by `signal` leaves none, and no instance starts after it.
 */
export async function runEval(options: EvalOptions): Promise<EvalRunResult> {
  const started = options.now();
  const selected = selectInstances(readInstanceRecords(options.data), options);
  const outputs = openEvalOutputs(options.out, options.resume);
  if ("taken" in outputs) throw new EvalInputError(`${outputs.taken} holds an earlier run's results; pass --resume to continue it, or choose an empty --out`);
  // The summary and the progress count this selection: a resumed run may hold results of instances not selected now.
  const chosen = new Set(selected.map((entry) => entry.instance_id));
  const results = outputs.done.filter((r) => chosen.has(r.instance_id));
  const done = new Set(results.map((r) => r.instance_id));
  const pending = selected.filter((entry) => !done.has(entry.instance_id));
  if (done.size > 0) options.stderr(`resuming: ${selected.length - pending.length} of ${selected.length} instances are done in ${options.out}\n`);
  // Copies a killed run left behind; each instance makes its own again.
  fs.rmSync(path.join(options.out, "scratch"), { recursive: true, force: true });
  const store = openSqliteStore(path.join(options.out, "memory.db"));
  await store.migrate();
  const memory = store.memory;
  // One memo of the memory's index cache for the run: an instance finds what earlier ones of its repository tokenized.
  const terms = { cache: memory.index, memo: new TermMemo() };
  const summarize = () =>
    renderSummary(results, {
      model: options.modelName,
      data: path.basename(options.data),
      total: selected.length,
      wallMs: options.now() - started,
      predictions: path.resolve(options.out, "predictions.jsonl"),
      oracle: options.oracle !== undefined,
    });
  let finishedHere = 0;
  try {
    await mapBounded(pending, options.concurrency, async (entry) => {
      if (options.signal?.aborted) return;
      let crash: string | null = null;
      const run = isBadRecord(entry)
        ? null
        : await runEvalInstance(entry, {
            repos: options.repos,
            prepareFrom: options.prepareFrom,
            scratch: path.join(options.out, "scratch"),
            memory,
            terms,
            makeLlm: options.makeLlm,
            commands: options.commands,
            ...(options.secrets ? { secrets: options.secrets } : {}),
            ...(options.candidates ? { candidates: options.candidates } : {}),
            ...(options.environments ? { environments: options.environments } : {}),
            now: options.now,
            prices: options.prices,
            log: (line) => options.stderr(`${clearBar(options)}${line}\n`),
            ...(options.signal ? { signal: options.signal } : {}),
          }).catch((error: unknown) => {
            // Whatever fails outside the pipeline (a measure, a copy) is this instance's failure; the run goes on.
            crash = error instanceof Error ? error.message : String(error);
            return null;
          });
      // Stopped before its end: what it measured is not the instance's, and a --resume runs it again.
      if (options.signal?.aborted) return;
      const result = run
        ? withLosses(run, entry as BenchInstance, options)
        : crash !== null
          ? { ...inputFailureResult(entry.instance_id, (entry as BenchInstance).repo, crash), failure: { stage: "crash", reason: crash } }
          : inputFailureResult(entry.instance_id, "(unreadable record)", (entry as BadInstanceRecord).reason);
      await outputs.add(
        { instance_id: result.instance_id, model_name_or_path: options.modelName, model_patch: run?.patch ?? "" },
        result,
        run?.trace ?? [],
        run?.sessionPage,
      );
      results.push(result);
      finishedHere++;
      outputs.writeSummary(summarize());
      const line = describeEvalProgress({ result, results, total: selected.length, finishedHere, elapsedMs: options.now() - started });
      options.stderr(`${clearBar(options)}${line}${options.isTTY ? renderProgressBar(results.length, selected.length) : ""}`);
    });
  } finally {
    await store.close();
  }
  if (options.isTTY) options.stderr("\n");
  outputs.writeSummary(summarize());
  return { results, total: selected.length };
}

function withLosses(run: InstanceRun, instance: BenchInstance, options: EvalOptions): EvalResult {
  if (!options.oracle) return run.result;
  try {
    const { losses, offsets } = options.oracle.explainLosses(instance, run);
    return { ...run.result, oracle: true, losses, gold_offsets: offsets };
  } catch (error) {
    // The accounting of one instance must not stop the run: its result says it could not be made.
    const detail = `the losses could not be worked out: ${error instanceof Error ? error.message : String(error)}`;
    return { ...run.result, oracle: true, losses: [{ cause: "unexplained", by: "instrument", file: "", detail }], gold_offsets: [] };
  }
}

/** On a terminal, what erases the bar before a line is printed over it. */
function clearBar(options: Pick<EvalOptions, "isTTY">): string {
  return options.isTTY ? "\r\x1b[K" : "";
}
