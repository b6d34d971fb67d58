import type { EnvironmentReport, StageContext } from "../types.js";
import { openWorkbench } from "./open-workbench.js";

/** A checkout's environment made ready without a job, or why not. */
export type PreparedEnvironment = { ok: true; environment: EnvironmentReport } | { ok: false; why: string; environment?: EnvironmentReport };

/**
 * Builds a checkout's declared environment (or reuses and maintains a kept one) as a job's workbench would, waits until
 * it is kept on the policy's shelf, and removes the copy: `magis env build`. Not ok when the repository's commands may
 * not run here, it declares no environment, or a step failed.
 */
export async function prepareEnvironment(ctx: Pick<StageContext, "root" | "repoId" | "config" | "commands">): Promise<PreparedEnvironment> {
  const opened = await openWorkbench(ctx);
  if (!opened.ok) return { ok: false, why: opened.why, ...(opened.environment ? { environment: opened.environment } : {}) };
  try {
    const environment = await opened.workbench.settled();
    if (!environment)
      return {
        ok: false,
        why: "the repository declares no environment (no `environment:` or `setup_command` in .github/magis.yml, no devcontainer.json, no copilot-setup-steps.yml)",
      };
    return { ok: true, environment };
  } finally {
    opened.workbench.dispose();
  }
}
