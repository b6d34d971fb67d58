import os from "node:os";
import { DAY_MS, evict, type ObjectCache } from "../git/object-cache.js";
import { removeLeftoverCheckouts } from "../git/remove-leftover-checkouts.js";
import type { QueueLog } from "../jobs/job-queue.js";

/** How often a worker removes the kept objects of repositories no job used for MAGIS_OBJECT_CACHE_DAYS. */
const OBJECT_SWEEP_MS = 3600 * 1000;
/** How often a worker looks for checkouts that processes killed mid-job left behind: a killed worker's among them. */
const CHECKOUT_SWEEP_MS = 5 * 60 * 1000;

/** A sweep that runs now and then every so often, until stopped; its timer keeps no process alive. */
export interface Sweep {
  stop: () => void;
}

/**
 * Removes the stale kept objects now (see evict), and again every `everyMs` until stopped. A failure is logged, and the
 * next sweep tries again.
 */
export function sweepObjects(cache: ObjectCache, log: Pick<QueueLog, "info" | "warn">, everyMs = OBJECT_SWEEP_MS): Sweep {
  return every(everyMs, () => {
    try {
      const removed = evict(cache);
      if (removed === 0) return;
      const days = Math.round((cache.maxAgeMs ?? 0) / DAY_MS);
      const which = removed === 1 ? "1 repository" : `${removed} repositories`;
      log.info(
        { dir: cache.dir, removed },
        `removed the kept objects of ${which} no job used for ${days === 1 ? "a day" : `${days} days`}, or past the cache's size`,
      );
    } catch (error) {
      log.warn({ dir: cache.dir, error: error instanceof Error ? error.message : String(error) }, "could not remove stale kept objects");
    }
  });
}

/**
 * Removes the checkouts of processes that are gone (killed mid-job, so their own clean-up never ran), and stops what
 * their test runs left running there (see removeLeftoverCheckouts), now and every `everyMs`: any worker of the machine
 * finds a killed worker's, not only the next to start. The system's temp folder is swept too, wherever `workDir` is:
 * the language servers' temp folders are made there.
 */
export function sweepCheckouts(workDir: string, log: Pick<QueueLog, "info" | "warn">, everyMs = CHECKOUT_SWEEP_MS): Sweep {
  return every(everyMs, () => {
    for (const dir of new Set([workDir, os.tmpdir()])) {
      const { removed, failed } = removeLeftoverCheckouts(dir);
      if (removed.length > 0) log.info({ workDir: dir, removed }, `removed ${removed.length} checkouts left behind by processes that are gone`);
      for (const { path: folder, error } of failed) log.warn({ folder, error }, "could not remove a checkout left behind by a process that is gone");
    }
  });
}

/** Runs `sweep` now and every `everyMs` until stopped (an async sweep catches its own failures). */
export function every(everyMs: number, sweep: () => void): Sweep {
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
