import type { Checkout } from "../git/checkout.js";
import type { CommandPolicy, ProgressEvent, StageContext } from "../pipeline/types.js";
import { repositoryKey, type JobRecord } from "../store/jobs.js";
import type { JobRun } from "./run-job.js";

/** Where a job may run the repository's commands: what the wiring gives every kind of job. */
export interface CommandServices {
  /**
   * Where the repository's `test_command` may run on this machine: the environment it runs in (credentials are removed
   * from it) and values to redact from its output. Absent: it may not (an App server without MAGIS_ALLOW_EXEC=1).
   */
  exec?: { env: NodeJS.ProcessEnv; secrets: (string | undefined)[] };
}

/** Whether and how a job may run the repository's tests: in a copy beside the checkout (removed with leftover checkouts). */
export function commandPolicy(services: CommandServices, job: { secrets: string[]; signal: AbortSignal; checkoutDir: string }): CommandPolicy {
  if (!services.exec)
    return {
      allowed: false,
      why: "this app's server does not run repository code; its operator can allow it with MAGIS_ALLOW_EXEC=1, or run MAGIS as a GitHub Action",
    };
  return {
    allowed: true,
    env: services.exec.env,
    secrets: [...services.exec.secrets, ...job.secrets],
    signal: job.signal,
    scratchDir: `${job.checkoutDir}.tests`,
  };
}

/**
 * What the pipeline works with inside a job's checkout: the repository's key, the job's config and model, its clock
 * and progress, and whether the repository's commands may run (`commands`: the job's services, or none).
 */
export function stageContext(
  run: Pick<JobRun<unknown>, "config" | "llm" | "token" | "signal">,
  job: JobRecord,
  parts: { checkout: Pick<Checkout, "dir">; now: () => number; commands: CommandServices; onProgress: (event: ProgressEvent) => void },
): StageContext {
  return {
    root: parts.checkout.dir,
    repoId: repositoryKey(job.owner, job.repo),
    config: run.config,
    llm: run.llm,
    now: parts.now,
    onProgress: parts.onProgress,
    commands: commandPolicy(parts.commands, { secrets: [run.token], signal: run.signal, checkoutDir: parts.checkout.dir }),
  };
}
