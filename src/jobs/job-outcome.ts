/**
 * How one run of a job ended, as its runner returns it and its record keeps it. `detail` is what the record says: the
 * pull request's URL, or the reason in plain words (with the next step, for a failure the status comment explained).
 * `stage` is where a run that did not succeed stopped. `handed-back`: a worker shutting down gave the run back to the
 * queue, which starts it again elsewhere. `asked`: the Manager asked the author a question instead of acting;
 * the record keeps it as a run that did its work (succeeded), its detail beginning "Asked" (see ASKED_PREFIX).
 */
export type JobOutcome =
  | { status: "succeeded"; detail: string }
  | { status: "asked"; detail: string }
  | { status: "failed"; detail: string; stage?: string }
  | { status: "cancelled"; detail: string; stage?: string }
  | { status: "handed-back"; detail: string; stage?: string };

/**
 * The reason a queue aborts a running job's signal with when it hands the run back (a worker shutting down): the job
 * shows it stopped and starts again by itself, rather than cancelled.
 */
export class HandBack extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HandBack";
  }
}

/** The outcome of a run stopped by its queue before it finished: handed back, or cancelled with the signal's reason. */
export function stoppedOutcome(reason: unknown, stage?: string): JobOutcome {
  const detail = reason instanceof Error ? reason.message : String(reason);
  return reason instanceof HandBack ? { status: "handed-back", detail, stage } : { status: "cancelled", detail, stage };
}

/** How an `asked` run's record detail begins: the store keeps such a run succeeded, and this tells the two apart. */
export const ASKED_PREFIX = "Asked ";
