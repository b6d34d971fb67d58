import type { TriggerStore } from "../../store/store.js";
import type { SpoolReplayer } from "../replay-spool.js";
import type { TriggerRule } from "../trigger-rule.js";
import type { DecisionRetries } from "./decision-retries.js";
import type { DeskTiming, TriggerDeskOptions } from "./desk-options.js";
import type { FairSlots } from "./fair-slots.js";

/** What one desk was given and what it holds while it runs; each of its parts is a function over it. */
export interface DeskState {
  readonly store: TriggerStore;
  readonly rules: TriggerRule[];
  readonly options: TriggerDeskOptions;
  /** The options' timing over the defaults. */
  readonly timing: DeskTiming;
  /** How long the recorder holds a trigger before another process may decide it (0: a store one process uses). */
  readonly leaseMs: number;
  /** The decisions under way, until each is made and recorded. */
  readonly inFlight: Set<Promise<void>>;
  /** The deliveries this desk is deciding: a sweep never takes one of its own twice. */
  readonly deciding: Set<string>;
  /** The last decision scheduled on each issue or pull request (owner/repo#number, lower case): the next waits for it. */
  readonly chains: Map<string, Promise<void>>;
  /** A burst of webhooks must not become a burst of API calls: a few decisions at a time, the installations in turn. */
  readonly slots: FairSlots;
  /** Decisions GitHub failed, to be made again once it may be back. */
  readonly retries: DecisionRetries;
  /** Offers the spooled deliveries to the store again (when there is a spool). */
  readonly replayer: SpoolReplayer | undefined;
  /** Deliveries found recorded before, until the server asks (see `wasRedelivery`); bounded so nothing unasked piles up. */
  readonly redeliveries: Set<string>;
  /** Looks for triggers other processes left undecided, while the desk runs on a shared store. */
  sweeper: NodeJS.Timeout | null;
}
