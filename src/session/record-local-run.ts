import type { ModelPrices } from "../llm/prices.js";
import type { TraceRecord } from "../llm/types.js";
import type { CommandPolicy, ProgressEvent } from "../pipeline/types.js";
import { SessionRecorder } from "./record-session.js";
import { memorySink } from "./record/memory-sink.js";
import { modelCallEntry } from "./record/model-call-entry.js";
import { progressEntry } from "./record/progress-entry.js";
import { recordingSandbox } from "./record/record-commands.js";
import { stageAfter } from "./record/stage-after.js";
import { renderSessionPage } from "./render-session-page.js";
import type { SessionEntry, SessionJob, SessionOutcome } from "./types.js";

/** What a run outside the App (`magis resolve`, one instance of `magis eval`) records its session from. */
export interface LocalRun {
  job: SessionJob;
  /** The run's model client's trace (none before there is a client), which grows as calls end: each call is recorded before what follows it. */
  trace: () => readonly TraceRecord[];
  /** Values removed from every entry (the model's key), beside the shapes of credentials. */
  secrets: readonly (string | undefined)[];
  prices?: ModelPrices;
  now: () => number;
}

/** A local run's session: fed as a job's is (progress, model calls, commands), rendered as one page at its end. */
export interface LocalSession {
  /** Records a pipeline event (and the stage it begins); give it every event the pipeline reports. */
  onProgress(event: ProgressEvent): void;
  /** The policy with its sandbox recording each command; a policy that runs nothing is handed back as it is. */
  commands(policy: CommandPolicy): CommandPolicy;
  /** Records the outcome and returns the session as a self-contained page (no script, no asset from elsewhere). */
  end(outcome: SessionOutcome): Promise<string>;
}

/**
 * Starts a local run's session in memory, with the same entries a job of the App records: the job, its stages (from the
 * pipeline's events, since no job moves it through them), each model call in the order it ended, each command, the
 * progress, the result and the outcome, redacted and bounded by the same recorder.
 */
export function startLocalSession(run: LocalRun): LocalSession {
  const memory = memorySink();
  const recorder = new SessionRecorder({ sink: memory.sink, secrets: run.secrets, now: run.now, prices: run.prices });
  let seen = 0;
  const record = (entry: SessionEntry) => {
    // The calls that ended before this entry come first, as the App records each call when it ends.
    const trace = run.trace();
    for (; seen < trace.length; seen += 1) recorder.record(modelCallEntry(trace[seen]!));
    recorder.record(entry);
  };
  let stage = "locate";
  recorder.record({ kind: "job", data: run.job });
  recorder.record({ kind: "stage", data: { name: stage, state: "started" } });
  return {
    onProgress(event) {
      record(progressEntry(event));
      const next = stageAfter(event);
      if (!next || next === stage) return;
      record({ kind: "stage", data: { name: stage, state: "ended" } });
      record({ kind: "stage", data: { name: (stage = next), state: "started" } });
    },
    commands(policy) {
      return policy.allowed ? { ...policy, sandbox: recordingSandbox(policy.sandbox, record) } : policy;
    },
    async end(outcome) {
      record({ kind: "stage", data: { name: stage, state: "ended" } });
      record({ kind: "outcome", data: outcome });
      await recorder.close();
      return renderSessionPage(memory.entries());
    },
  };
}
