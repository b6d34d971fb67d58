import type { Context } from "probot";
import type { RuleEvent, TriggerRule } from "../trigger-rule.js";

/** The rules that want this delivery: of its event, taking bots' events only where a rule says so. */
export function pickRules(rules: TriggerRule[], event: string, context: Context<RuleEvent>): TriggerRule[] {
  return rules.filter((r) => r.event === event && (r.fromBots || !context.isBot) && r.wants(context.payload));
}
