import fs from "node:fs";
import path from "node:path";
import { writeTraceJsonl } from "../llm/trace.js";
import type { TraceRecord } from "../llm/types.js";
import type { EvalResult, Prediction } from "./types.js";

/** The output folder of a run: what earlier runs finished there, and how to add an instance or rewrite the summary. */
export interface EvalOutputs {
  /** Results of instances finished by earlier runs (`--resume`), in the order they finished. */
  done: EvalResult[];
  /** Records one finished instance: its trace and its session's page, its prediction, then its result (the line that marks it done). */
  add(prediction: Prediction, result: EvalResult, trace: readonly TraceRecord[], sessionPage?: string): Promise<void>;
  writeSummary(markdown: string): void;
}

/** Files an earlier run leaves that mean the folder is taken. */
const OUTPUTS = ["results.jsonl", "predictions.jsonl"];

/**
 * Opens the output folder. Without `resume` it must hold no earlier results. With it, the results of finished
 * instances are read back (a line torn by a kill is dropped) and predictions.jsonl keeps exactly their lines, so an
 * instance killed between its two lines runs again without a duplicate prediction.
 */
export function openEvalOutputs(out: string, resume: boolean): EvalOutputs | { taken: string } {
  fs.mkdirSync(path.join(out, "traces"), { recursive: true });
  fs.mkdirSync(path.join(out, "sessions"), { recursive: true });
  const results = path.join(out, "results.jsonl");
  const predictions = path.join(out, "predictions.jsonl");
  if (!resume) {
    const taken = OUTPUTS.find((file) => (fs.statSync(path.join(out, file), { throwIfNoEntry: false })?.size ?? 0) > 0);
    if (taken) return { taken: path.join(out, taken) };
  }
  const done = readJsonLines<EvalResult>(results).filter((r) => typeof r.instance_id === "string");
  const ids = new Set(done.map((r) => r.instance_id));
  const lastPrediction = new Map(
    readJsonLines<Prediction>(predictions)
      .filter((p) => ids.has(p.instance_id))
      .map((p) => [p.instance_id, p]),
  );
  writeLines(results, done);
  writeLines(
    predictions,
    done.map((r) => lastPrediction.get(r.instance_id)).filter((p): p is Prediction => p !== undefined),
  );
  return {
    done,
    async add(prediction, result, trace, sessionPage) {
      await writeTraceJsonl(trace, path.join(out, "traces", `${result.instance_id}.jsonl`));
      if (sessionPage !== undefined) fs.writeFileSync(path.join(out, "sessions", `${result.instance_id}.html`), sessionPage);
      fs.appendFileSync(predictions, JSON.stringify(prediction) + "\n");
      fs.appendFileSync(results, JSON.stringify(result) + "\n");
    },
    writeSummary(markdown) {
      // Written whole and then renamed, so a kill never leaves half a summary.
      const file = path.join(out, "summary.md");
      fs.writeFileSync(`${file}.tmp`, markdown);
      fs.renameSync(`${file}.tmp`, file);
    },
  };
}

/** The objects of a JSON Lines file that parse; a missing file has none. */
function readJsonLines<T>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        return line.trim() ? [JSON.parse(line) as T] : [];
      } catch {
        return [];
      }
    });
}

function writeLines(file: string, records: unknown[]): void {
  fs.writeFileSync(`${file}.tmp`, records.map((r) => JSON.stringify(r) + "\n").join(""));
  fs.renameSync(`${file}.tmp`, file);
}
