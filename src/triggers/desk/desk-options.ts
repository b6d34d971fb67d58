import type { Octokit } from "../../github/types.js";
import type { ReplayEvent } from "../replay-spool.js";
import type { TriggerSpool } from "../trigger-spool.js";

/** What the desk needs from the app. */
export interface TriggerDeskOptions {
  /** An installation's client (for deciding triggers left undecided by an earlier process). */
  auth: (installationId: number) => Promise<Octokit>;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
  /**
   * How long the process that records a trigger holds it before another may decide it (0, the default, in a store one
   * process uses). With a shared store the desk also looks every half lease for triggers whose lease ran out: their
   * recorder died (or fell that far behind) before deciding them.
   */
  leaseMs?: number;
  /**
   * Where a delivery goes when the store cannot take it (PostgreSQL down for a moment): answered, kept, and recorded
   * when the store answers again. Without one, or when it is full or its folder may not be used, the delivery is
   * answered 503. A spool folder another user may write to stops `start`.
   */
  spool?: TriggerSpool;
  /** Told what happened to deliveries on the way (see DeskEvent). */
  onEvent?: (event: DeskEvent) => void;
  /**
   * How often spooled deliveries are offered to the store again, the first pause before a failed decision is tried
   * again, and how long a delivery waits for the store before it is spooled (tests shorten them).
   */
  timing?: Partial<DeskTiming>;
}

/**
 * What the desk reports for the metrics: a delivery spooled, replayed from the spool, refused with no room to keep it, a
 * file in the spool set aside as holding no delivery of its own, a decision tried again, or given up on.
 */
export type DeskEvent = "spooled" | ReplayEvent | "spool_full" | "retried" | "gave_up";

/** The desk's pauses, in ms (see `TriggerDeskOptions.timing`). */
export type DeskTiming = typeof DEFAULT_TIMING;

/**
 * The pauses a desk uses unless told otherwise. GitHub gives up on a webhook after 10 s: a store silent for half of that
 * (a database that drops packets) has it spooled.
 */
export const DEFAULT_TIMING = { replayMs: 2_000, retryFirstMs: 30_000, recordWaitMs: 5_000 };
