import type { EnvironmentScope, EnvironmentShelf } from "../environment/index.js";
import type { Checkout } from "../git/checkout.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { recordingSandbox } from "../session/record/record-commands.js";
import type { SessionEntry } from "../session/types.js";
import type { CommandPolicy, ProgressEvent, StageContext } from "../pipeline/types.js";
import { repositoryKey, type JobRecord } from "../store/jobs.js";
import type { JobRun } from "./run-job.js";

/** Where a job may run the repository's commands: what the wiring gives every kind of job. */
export interface CommandServices {
  /**
   * What the repository's commands run in (the sandbox the door chose when it started) and the values to redact from
   * their output, and where the environments their setups built are kept (absent: none kept, each job builds its own);
   * or why they do not run here (no sandbox works on this App server).
   */
  commands: { sandbox: Sandbox; secrets: (string | undefined)[]; environments?: EnvironmentShelf } | { why: string };
}

/**
 * Whether and how a job may run the repository's tests: in a copy beside the checkout (removed with leftover checkouts),
 * from an environment kept for the repository and its installation (`scope`) where the services keep them, each
 * command recorded in the job's session (`record`) as it ends.
 */
export function commandPolicy(
  services: CommandServices,
  job: { secrets: string[]; signal: AbortSignal; checkoutDir: string; scope: EnvironmentScope; record?: (entry: SessionEntry) => void },
): CommandPolicy {
  const { commands } = services;
  if ("why" in commands) return { allowed: false, why: commands.why };
  return {
    allowed: true,
    sandbox: job.record ? recordingSandbox(commands.sandbox, job.record) : commands.sandbox,
    secrets: [...commands.secrets, ...job.secrets],
    signal: job.signal,
    scratchDir: `${job.checkoutDir}.tests`,
    ...(commands.environments && { environments: commands.environments, scope: job.scope }),
  };
}

/**
 * What the pipeline works with inside a job's checkout: the repository's key, the job's config and model, its clock
 * and progress, and whether the repository's commands may run (`commands`: the job's services, or none).
 */
export function stageContext(
  run: Pick<JobRun<unknown>, "config" | "llm" | "token" | "signal" | "session">,
  job: JobRecord,
  parts: { checkout: Pick<Checkout, "dir">; now: () => number; commands: CommandServices; onProgress: (event: ProgressEvent) => void },
): StageContext {
  const repoId = repositoryKey(job.owner, job.repo);
  const scope = { repo: repoId, installationId: job.installationId };
  return {
    root: parts.checkout.dir,
    repoId,
    config: run.config,
    llm: run.llm,
    now: parts.now,
    onProgress: parts.onProgress,
    commands: commandPolicy(parts.commands, {
      secrets: [run.token],
      signal: run.signal,
      checkoutDir: parts.checkout.dir,
      scope,
      record: (entry) => run.session.record(entry),
    }),
  };
}
