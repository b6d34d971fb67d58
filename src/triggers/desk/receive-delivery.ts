import type { Context } from "probot";
import type { RuleEvent } from "../trigger-rule.js";
import type { DeskState } from "./desk-state.js";
import { pickRules } from "./pick-rules.js";
import { recordOrSpool } from "./record-or-spool.js";
import { scheduleDecision } from "./schedule-decision.js";

/** Most redeliveries remembered until the server asks about them. */
const MAX_REDELIVERIES = 1000;

/** Records a delivery one of the rules wants and schedules its decision, for after the answer; makes no call to GitHub. */
export async function receiveDelivery(state: DeskState, context: Context<RuleEvent>): Promise<void> {
  const { payload } = context;
  const event = eventOf(context);
  if (!payload.installation || !payload.repository) return;
  if (pickRules(state.rules, event, context).length === 0) return;
  const number = "issue" in payload ? payload.issue.number : "pull_request" in payload ? payload.pull_request.number : 0;
  const trigger = {
    delivery: context.id,
    event,
    installationId: payload.installation.id,
    owner: payload.repository.owner.login,
    repo: payload.repository.name,
    number,
    payload: { ...payload },
    receivedAt: Date.now(),
  };
  // A store that cannot take it now (SQLite locked by another process past a short wait) throws JobStoreBusyError,
  // which Probot answers 503: the delivery can be redelivered. One that fails otherwise (down) has it spooled.
  const kept = await recordOrSpool(state, trigger, context);
  if (kept === "spooled") return;
  if (kept === "redelivery") {
    context.log.info({ delivery: context.id, event }, "a redelivered webhook; it was recorded before and is not acted on twice");
    if (state.redeliveries.size >= MAX_REDELIVERIES) state.redeliveries.clear();
    state.redeliveries.add(context.id);
    return;
  }
  scheduleDecision(state, trigger, context);
}

/** The event of a delivery with its action, as the rules name it: `issues.labeled`. */
function eventOf(context: Context<RuleEvent>): string {
  return `${context.name}.${"action" in context.payload ? context.payload.action : ""}`;
}
