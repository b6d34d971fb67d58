import type { NewTrigger } from "../store/triggers.js";
import type { TriggerSpool } from "./trigger-spool.js";

/** What the replays report: a delivery recorded from the spool, or a file in it set aside as holding none. */
export type ReplayEvent = "replayed" | "set_aside";

/** What the replays need from the desk. */
export interface SpoolReplayOptions {
  /** How often the spool is offered to the store while it holds deliveries. */
  everyMs: number;
  /** Records a delivery in the store: true when it was not recorded before; throws while the store does not answer. */
  record: (trigger: NewTrigger) => Promise<boolean>;
  /** Has a delivery the replay recorded afresh decided. */
  decide: (trigger: NewTrigger) => void;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
  onEvent?: (event: ReplayEvent) => void;
}

/**
 * Offers the spooled deliveries to the store, oldest first, every interval while any is left, and has each it records
 * afresh decided; stops at the first the store still refuses, to try again at the next interval. A file that holds no
 * delivery of the spool's is set aside (logged, counted `set_aside`) and the replay goes on with the next.
 */
export class SpoolReplayer {
  private timer: NodeJS.Timeout | null = null;
  private replaying = false;

  constructor(
    private readonly spool: TriggerSpool,
    private readonly options: SpoolReplayOptions,
  ) {}

  /** Starts the replays, unless they run already. */
  soon(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.replay(), this.options.everyMs);
    this.timer.unref();
  }

  /** Stops the replays; what the spool holds stays there for the next process. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async replay(): Promise<void> {
    if (this.replaying) return;
    this.replaying = true;
    const { spool, options } = this;
    try {
      const problem = spool.folderProblem();
      if (problem) {
        this.stop();
        options.log.warn({ dir: spool.dir, error: problem }, "ALERT: the spooled deliveries are not replayed");
        return;
      }
      for (const file of spool.files()) {
        const entry = spool.read(file);
        if ("gone" in entry) continue;
        if ("setAside" in entry) {
          options.onEvent?.("set_aside");
          options.log.warn({ file, why: entry.setAside }, "ALERT: a file in the spool holds no delivery it wrote; set aside in rejected/, not replayed");
          continue;
        }
        const fresh = await options.record(entry.trigger);
        spool.remove(file);
        options.onEvent?.("replayed");
        if (fresh) options.decide(entry.trigger);
      }
      if (spool.depth === 0) {
        this.stop();
        options.log.info({ dir: spool.dir }, "the spooled deliveries are recorded; the store answers again");
      }
    } catch {
      // The store still does not answer: the next interval tries again.
    } finally {
      this.replaying = false;
    }
  }
}
