import type { Context } from "probot";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { JobStoreBusyError } from "../../store/store.js";
import type { NewTrigger } from "../../store/triggers.js";
import type { RuleEvent } from "../trigger-rule.js";
import type { DeskState } from "./desk-state.js";
import { scheduleDecision } from "./schedule-decision.js";

/** The store could not take a delivery and there was no room to keep it: answered 503, with the reason. */
export class StoreUnavailableError extends Error {
  readonly status = 503;
}

/**
 * Records a delivery, or when the store fails or does not answer in time, spools it to be recorded later; says which,
 * or that it was recorded before. A record that lands after the delivery was spooled has it decided all the same.
 * Throws JobStoreBusyError for a store busy past its wait, and StoreUnavailableError when the spool cannot keep it.
 */
export async function recordOrSpool(state: DeskState, trigger: NewTrigger, context: Context<RuleEvent>): Promise<"recorded" | "redelivery" | "spooled"> {
  const { options, timing } = state;
  try {
    const recording = state.store.record(trigger, state.leaseMs);
    let waiting: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timed out">((resolve) => (waiting = setTimeout(() => resolve("timed out"), timing.recordWaitMs)));
    const fresh = await Promise.race([recording, timedOut]).finally(() => clearTimeout(waiting));
    if (fresh !== "timed out") return fresh ? "recorded" : "redelivery";
    recording.then(
      (late) => late && scheduleDecision(state, trigger, context),
      () => {},
    );
    throw new Error(`the store did not answer within ${timing.recordWaitMs / 1000} s`);
  } catch (error) {
    if (error instanceof JobStoreBusyError) throw error;
    const why = redactSecrets(error instanceof Error ? error.message : String(error), []);
    const { spool, onEvent } = options;
    const notKept = spool ? spool.add(trigger) : "no spool is set up";
    if (!spool || notKept !== undefined) {
      onEvent?.("spool_full");
      options.log.warn(
        { delivery: trigger.delivery, event: trigger.event, error: why, spool: notKept },
        "ALERT: the store could not record a delivery and the spool could not keep it; answered 503, redeliver it from the app's settings once the store is back",
      );
      throw new StoreUnavailableError(`the store could not record this delivery (${why}), and it could not be kept to record later; redeliver it`);
    }
    onEvent?.("spooled");
    options.log.warn(
      { delivery: trigger.delivery, event: trigger.event, error: why, spooled: spool.depth },
      `ALERT: the store could not record a delivery; it is kept in ${spool.dir} and recorded once the store answers`,
    );
    state.replayer?.soon();
    return "spooled";
  }
}
