import { redactSecrets } from "../../lib/redact-secrets.js";
import type { DeskState } from "./desk-state.js";
import { scheduleDecision } from "./schedule-decision.js";

/**
 * Decides the triggers an earlier process recorded but did not decide (it stopped in between). With a shared store it
 * goes on looking for such triggers every half lease, until the desk stops: another web process may die at any time.
 */
export async function sweepUndecided(state: DeskState): Promise<void> {
  await takeUndecided(state);
  if (state.leaseMs <= 0) return;
  state.sweeper = setInterval(() => {
    takeUndecided(state).catch((error: unknown) =>
      state.options.log.warn({ error: redactSecrets(String(error), []) }, "could not look for triggers other processes left undecided; looking again later"),
    );
  }, state.leaseMs / 2);
}

async function takeUndecided(state: DeskState): Promise<void> {
  const undecided = await state.store.claimUndecided(state.leaseMs);
  for (const trigger of undecided) if (!state.deciding.has(trigger.delivery)) scheduleDecision(state, trigger);
}
