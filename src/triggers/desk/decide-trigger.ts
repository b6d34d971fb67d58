import type { Context } from "probot";
import { isGitHubOutage } from "../../github/client/is-github-outage.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import type { Decision } from "../../store/triggers.js";
import type { RuleEvent } from "../trigger-rule.js";
import type { DeskState } from "./desk-state.js";
import { pickRules } from "./pick-rules.js";

/**
 * Decides a trigger by the first rule that does not ignore it and records the outcome; a decision GitHub failed is
 * tried again later. Never throws: whatever happens, the outcome is recorded (or, with the store down, logged).
 */
export async function decideTrigger(
  state: DeskState,
  trigger: { delivery: string; event: string; receivedAt: number },
  contextOf: () => Promise<Context<RuleEvent>>,
): Promise<void> {
  const { delivery, event } = trigger;
  const { options } = state;
  let decision: Decision = { outcome: "ignored", detail: "no rule applies to this event" };
  try {
    const context = await contextOf();
    for (const rule of pickRules(state.rules, event, context)) {
      decision = await rule.decide(context, new Date(trigger.receivedAt).toISOString());
      if (decision.outcome !== "ignored") break;
    }
    state.retries.forget(delivery);
  } catch (error) {
    decision = { outcome: "failed", detail: `deciding about it failed: ${redactSecrets(error instanceof Error ? error.message : String(error), [])}` };
    // GitHub's own trouble passes: the decision is tried again, for a while, with its payload (a failed one keeps it).
    if (isGitHubOutage(error)) {
      const pause = state.retries.schedule(trigger);
      if (pause === null) options.onEvent?.("gave_up");
      else decision.detail += `; GitHub failed it, so it is tried again in ${Math.round(pause / 1000)} s`;
    }
    options.log.warn({ delivery, event, error: decision.detail }, "a trigger could not be decided");
  }
  try {
    // The decision was acted on already: the store waits out another process's lock as long as a job's record would.
    await state.store.decide(delivery, decision.outcome, decision.detail);
  } catch (error) {
    // The decision was acted on; only its record is missing, and the log keeps it.
    options.log.warn({ delivery, event, decision, error: String(error) }, "a trigger's outcome could not be recorded");
  }
  options.log.info({ delivery, event, outcome: decision.outcome, detail: decision.detail }, "magis trigger decided");
}
