import { redactSecrets } from "../../lib/redact-secrets.js";
import type { DeskState } from "./desk-state.js";
import { scheduleDecision } from "./schedule-decision.js";

/** Decides a delivery again from its record, if it is still recorded failed (another process may have decided it). */
export function decideAgain(state: DeskState, delivery: string): void {
  state.store
    .get(delivery)
    .then((record) => {
      if (record?.outcome !== "failed") return;
      state.options.onEvent?.("retried");
      scheduleDecision(state, record);
    })
    .catch((error: unknown) => state.options.log.warn({ delivery, error: redactSecrets(String(error), []) }, "could not read a trigger to decide it again"));
}
