import type { Llm } from "../llm/types.js";
import type { LlmStats } from "../llm/usage-ledger.js";

/** Wall time and time spent waiting for the model, per phase of a job. */
export interface PhaseTiming {
  phase: string;
  wallMs: number;
  modelMs: number;
}

/** Splits a job's wall time into phases and counts, within each, the time spent inside model calls. */
export class PhaseClock {
  private readonly timings: PhaseTiming[] = [];
  private phase: string;
  private phaseStart: number;
  private modelAtStart = 0;
  private modelMs = 0;

  constructor(
    first: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.phase = first;
    this.phaseStart = now();
  }

  /** Ends the current phase and starts `next`. */
  mark(next: string): void {
    const at = this.now();
    this.timings.push({ phase: this.phase, wallMs: at - this.phaseStart, modelMs: this.modelMs - this.modelAtStart });
    this.phase = next;
    this.phaseStart = at;
    this.modelAtStart = this.modelMs;
  }

  /** Ends the last phase and returns every phase's timing. */
  finish(): PhaseTiming[] {
    this.mark("(after)");
    return this.timings.filter((t) => t.phase !== "(after)");
  }

  /** The model, wrapped so the time of its calls is counted (concurrent calls count once per call). */
  timed(llm: Llm): Llm {
    const timed: Llm = {
      ask: async (request) => {
        const start = this.now();
        try {
          return await llm.ask(request);
        } finally {
          this.modelMs += this.now() - start;
        }
      },
    };
    // The client's stats name each agent's model as its settings say, for the job's report (see countUsage).
    const { stats } = llm as Partial<{ stats(): LlmStats }>;
    return stats ? Object.assign(timed, { stats: () => stats.call(llm) }) : timed;
  }
}
