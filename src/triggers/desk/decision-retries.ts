/** A decision GitHub failed (5xx, no answer) is tried again, pausing twice as long each time, for this long after the delivery. */
export const RETRY_FOR_MS = 30 * 60 * 1000;
/** The longest pause between two tries of a decision. */
const MAX_PAUSE_MS = 5 * 60 * 1000;

/**
 * The decisions GitHub failed and that are made again once it may be back: after `firstMs`, then twice as long each
 * time (at most five minutes apart), until half an hour after the delivery arrived. GitHub does not resend a delivery
 * it saw answered, so without this a trigger that met an outage of the API stays failed.
 */
export class DecisionRetries {
  /** How often each delivery's decision was tried again so far. */
  private readonly tried = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly firstMs: number,
    private readonly decideAgain: (delivery: string) => void,
  ) {}

  /** Schedules the next try of a delivery's decision and says how long until then; null once it is past trying. */
  schedule(trigger: { delivery: string; receivedAt: number }): number | null {
    const tries = this.tried.get(trigger.delivery) ?? 0;
    const pause = Math.min(this.firstMs * 2 ** tries, MAX_PAUSE_MS);
    if (Date.now() + pause - trigger.receivedAt > RETRY_FOR_MS) {
      this.tried.delete(trigger.delivery);
      return null;
    }
    this.tried.set(trigger.delivery, tries + 1);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.decideAgain(trigger.delivery);
    }, pause);
    timer.unref();
    this.timers.add(timer);
    return pause;
  }

  /** Forgets a delivery whose decision was made. */
  forget(delivery: string): void {
    this.tried.delete(delivery);
  }

  /** Drops every try still to come: the process is stopping, and their triggers stay recorded failed, saying why. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.tried.clear();
  }
}
