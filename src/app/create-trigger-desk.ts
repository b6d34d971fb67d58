import type { JobQueue, ServeRole } from "../jobs/job-queue.js";
import type { TriggerStore } from "../store/store.js";
import { RecentRefusals } from "../triggers/recent-refusals.js";
import { TriggerDesk } from "../triggers/trigger-desk.js";
import type { RuleServices } from "../triggers/trigger-rule.js";
import { triggerRules } from "../triggers/trigger-rules.js";
import { TriggerSpool } from "../triggers/trigger-spool.js";
import type { GitHubHost, ServiceSeams } from "./service-types.js";
import { spoolFolder } from "./settings/find-state-paths.js";
import type { Settings } from "./settings/settings-table.js";

/** What a door's trigger desk is made of: the door's GitHub, the settings, the store's triggers and the queue jobs go to. */
export interface TriggerDeskParts {
  host: GitHubHost;
  values: Settings;
  role: ServeRole;
  triggers: TriggerStore;
  /** How long the process that records a trigger holds it to decide it (the backend's: a shared store's is short). */
  leaseMs: number;
  queue: JobQueue;
  seams: Pick<ServiceSeams, "metrics" | "deskTiming">;
  /** The store's job records and sessions, where `/magis go` finds a job waiting for its plan's approval. */
  steering?: RuleServices["steering"];
}

/**
 * The trigger desk of a door, with every trigger rule over its queue, the spool of the deliveries its store could not
 * take (MAGIS_SPOOL_DIR, or the folder spoolFolder finds), and its events counted in the metrics.
 */
export function createTriggerDesk(parts: TriggerDeskParts): TriggerDesk {
  const { host, role, seams } = parts;
  const { auth, bot, log } = host;
  const spoolDir = spoolFolder(parts.values);
  if (!spoolDir && role !== "worker") {
    log.warn({}, "no spool folder (none of MAGIS_SPOOL_DIR, MAGIS_WORKDIR, HOME, XDG_CACHE_HOME is set): a delivery the store cannot take is answered 503");
  }
  const spool = spoolDir ? new TriggerSpool(spoolDir) : undefined;
  return new TriggerDesk(parts.triggers, triggerRules({ queue: parts.queue, bot, refusals: new RecentRefusals(), steering: parts.steering }), {
    auth,
    log,
    // With a shared store, the web process that records a trigger holds it a while to decide it; then any may take it.
    leaseMs: parts.leaseMs,
    spool,
    onEvent: (event) => seams.metrics?.triggerEvent(event),
    timing: seams.deskTiming,
  });
}
