import type { JobRunner } from "./job-queue.js";

/** One runner for the queue that hands each job to the runner of its kind (`resolve-issue`, later revisions). */
export function dispatchByKind(runners: Record<string, JobRunner>): JobRunner {
  return (job, progress) => {
    const run = runners[job.kind];
    if (!run) throw new Error(`no runner for jobs of kind '${job.kind}' (known: ${Object.keys(runners).join(", ")})`);
    return run(job, progress);
  };
}
