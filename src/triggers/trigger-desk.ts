import type { Context } from "probot";
import type { TriggerStore } from "../store/store.js";
import { decideAgain } from "./desk/decide-again.js";
import { DecisionRetries } from "./desk/decision-retries.js";
import { DEFAULT_TIMING, type TriggerDeskOptions } from "./desk/desk-options.js";
import type { DeskState } from "./desk/desk-state.js";
import { FairSlots } from "./desk/fair-slots.js";
import { receiveDelivery } from "./desk/receive-delivery.js";
import { scheduleDecision } from "./desk/schedule-decision.js";
import { sweepUndecided } from "./desk/sweep-undecided.js";
import { SpoolReplayer } from "./replay-spool.js";
import type { RuleEvent, TriggerRule } from "./trigger-rule.js";

/**
 * Where webhooks arrive. A delivery one of the rules wants is recorded at once, with its payload, and the webhook is
 * answered; the checks that call GitHub run afterwards. GitHub gives up on a webhook after 10 s and never sends it
 * again, so a slow or unreachable API must not cost the trigger: it stays recorded, and its outcome says what became
 * of it. Triggers an earlier process recorded but never decided are decided when the desk starts.
 *
 * The desk wires its parts (`desk/`) over one state: receiving (record first, or spool; answer), scheduling (in order
 * per issue, a few at a time, the installations in turn), deciding (the rules; GitHub's failures tried again), and
 * sweeping (triggers left undecided).
 */
export class TriggerDesk {
  private readonly state: DeskState;

  constructor(store: TriggerStore, rules: TriggerRule[], options: TriggerDeskOptions) {
    const timing = { ...DEFAULT_TIMING, ...options.timing };
    const { spool, log, onEvent } = options;
    const leaseMs = options.leaseMs ?? 0;
    const state: DeskState = {
      store,
      rules,
      options,
      timing,
      leaseMs,
      inFlight: new Set(),
      deciding: new Set(),
      chains: new Map(),
      slots: new FairSlots(4),
      retries: new DecisionRetries(timing.retryFirstMs, (delivery) => decideAgain(state, delivery)),
      replayer:
        spool &&
        new SpoolReplayer(spool, {
          everyMs: timing.replayMs,
          record: (trigger) => store.record(trigger, leaseMs),
          decide: (trigger) => scheduleDecision(state, trigger),
          log,
          onEvent,
        }),
      redeliveries: new Set(),
      sweeper: null,
    };
    this.state = state;
  }

  /** The webhook events the rules listen to, for `app.on`. */
  get events(): RuleEvent[] {
    return [...new Set(this.state.rules.map((r) => r.event))];
  }

  /** Probot's handler: records a wanted delivery and schedules its decision; makes no call to GitHub. */
  readonly receive = (context: Context<RuleEvent>): Promise<void> => receiveDelivery(this.state, context);

  /** Whether `delivery` was answered as a redelivery (asked once, by the server counting its answers). */
  wasRedelivery(delivery: string): boolean {
    return this.state.redeliveries.delete(delivery);
  }

  /**
   * Decides the triggers an earlier process recorded but did not decide (it stopped in between). With a shared store
   * it goes on looking for such triggers every half lease, while it runs: another web process may die at any time.
   */
  async start(): Promise<void> {
    // A spool folder another user may write to would have their files replayed as GitHub's deliveries.
    const { spool } = this.state.options;
    const problem = spool?.folderProblem();
    if (problem) throw new Error(problem);
    // Deliveries an earlier process spooled and never recorded (it stopped while the store was down).
    if (spool && spool.depth > 0) this.state.replayer?.soon();
    await sweepUndecided(this.state);
  }

  /** Stops looking for triggers other processes left undecided, replaying the spool and trying decisions again. */
  stop(): void {
    const { state } = this;
    if (state.sweeper) clearInterval(state.sweeper);
    state.sweeper = null;
    state.replayer?.stop();
    state.retries.stop();
  }

  /** Resolves once every decision under way has been made and recorded. */
  async settled(): Promise<void> {
    while (this.state.inFlight.size > 0) await Promise.allSettled([...this.state.inFlight]);
  }
}
