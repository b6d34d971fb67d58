import { Context, type Logger } from "probot";
import type { Octokit } from "../github/types.js";
import type { TriggerDeskOptions } from "./desk/desk-options.js";
import type { RuleEvent } from "./trigger-rule.js";

/**
 * The context of a delivery taken outside Probot's webhook path: a trigger recorded by an earlier process, or the
 * Action's event file. Its payload is the one GitHub sent for `event` (recorded as it came); its log is the app's.
 */
export function triggerContext(
  delivery: { delivery: string; event: string; payload: object },
  octokit: Octokit,
  log: TriggerDeskOptions["log"],
): Context<RuleEvent> {
  const [name] = delivery.event.split(".");
  const event = { id: delivery.delivery, name, payload: delivery.payload } as ConstructorParameters<typeof Context<RuleEvent>>[0];
  return new Context<RuleEvent>(event, octokit, contextLog(log));
}

/** The logger a Context built outside Probot's webhook path carries: Probot wants a pino logger; the rules use info and warn. */
function contextLog(log: TriggerDeskOptions["log"]): Logger {
  const shim = { info: log.info, warn: log.warn, debug: () => {}, trace: () => {}, error: log.warn, fatal: log.warn, child: () => shim };
  return shim as unknown as Logger;
}
