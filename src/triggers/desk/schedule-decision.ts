import type { Context } from "probot";
import type { NewTrigger } from "../../store/triggers.js";
import { triggerContext } from "../trigger-context.js";
import type { RuleEvent } from "../trigger-rule.js";
import { decideTrigger } from "./decide-trigger.js";
import type { DeskState } from "./desk-state.js";

/**
 * Has a trigger decided after those before it on its issue or pull request, once a slot is free for its installation:
 * with the `context` it came in, or, for a trigger taken from the store or the spool, one rebuilt from its payload.
 */
export function scheduleDecision(state: DeskState, trigger: NewTrigger, context?: Context<RuleEvent>): void {
  const contextOf = context ? () => Promise.resolve(context) : () => rebuildContext(state, trigger);
  // Triggers on one issue or pull request are decided in the order they arrived, so their jobs queue in that order;
  // the first waits for setImmediate, which runs once Probot has written the webhook's answer.
  const key = `${trigger.owner}/${trigger.repo}#${trigger.number}`.toLowerCase();
  const before = state.chains.get(key) ?? new Promise<void>((resolve) => setImmediate(resolve));
  const decision: Promise<void> = before
    .then(() => state.slots.run(String(trigger.installationId), () => decideTrigger(state, trigger, contextOf)))
    .finally(() => {
      state.inFlight.delete(decision);
      state.deciding.delete(trigger.delivery);
      if (state.chains.get(key) === decision) state.chains.delete(key);
    });
  state.chains.set(key, decision);
  state.inFlight.add(decision);
  state.deciding.add(trigger.delivery);
}

// A trigger recorded by an earlier process (or spooled): its context again, from the stored payload and a fresh client.
async function rebuildContext(state: DeskState, trigger: NewTrigger): Promise<Context<RuleEvent>> {
  return triggerContext(trigger, await state.options.auth(trigger.installationId), state.options.log);
}
