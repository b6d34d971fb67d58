import { nameWorkspace, openLanguageServers } from "../language-servers/index.js";
import { askSearchPaths, type SetUpCopy } from "./tests/ask-search-paths.js";
import type { EnvironmentReport, StageContext } from "./types.js";

/**
 * Runs `work` with the job's language servers on `ctx.root` when the config enables them (see StageContext), and stops
 * every server it started when the work ends, however it ends. A server starts on first use only, and serves every
 * attempt and candidate of the job. The untouched files' diagnostics are kept beside the job's index, in the store's
 * index cache, for later jobs on the same commit.
 */
export async function withLanguageServers<T>(ctx: StageContext, work: (ctx: StageContext) => Promise<T>): Promise<T> {
  const { diagnostics } = ctx.config;
  if (!diagnostics.enabled || ctx.languageServers) return await work(ctx);
  const seconds = diagnostics.timeout_seconds;
  const limits = { startMs: seconds * 1000, requestMs: seconds * 1000, memoryMb: diagnostics.memory_mb };
  // Where the repository's own commands run uncontained, by the operator's choice, the servers may too when bubblewrap
  // does not work; anywhere else they run in it or not at all.
  const allowUncontained = ctx.commands?.allowed === true && ctx.commands.sandbox.kind === "none";
  const cache = ctx.index?.terms?.cache;
  const across = cache && { cache, workspace: nameWorkspace(ctx.root) };
  const languageServers = openLanguageServers(ctx.root, limits, { allowUncontained }, across);
  try {
    return await work({ ...ctx, languageServers });
  } finally {
    await languageServers.stop();
  }
}

/**
 * Shows the job's language servers the packages of the environment a workbench set up: its search paths, asked once
 * inside the sandbox as soon as the workbench opened (call it then, before the tests are queued behind it). The servers
 * never wait for them: one already started is restarted with them at its next idle use. Nothing without servers or
 * without a declared environment (the copy is then the checkout, which they read already). The environment's key goes
 * with its folders, so that a later job's servers on the same commit and environment read the untouched files'
 * diagnostics back (see ServerEnvironment.key).
 */
export function showServersTheEnvironment(ctx: StageContext, workbench: SetUpCopy & { readonly environment?: Pick<EnvironmentReport, "key"> }): void {
  const declared = workbench.environment;
  if (!ctx.languageServers || !declared) return;
  // The kept environment's key: what later jobs with the same environment, at host folders of their own, share.
  const shown = askSearchPaths(workbench, ctx.root).then((found) => found && { ...found, key: declared.key });
  ctx.languageServers.useEnvironment(shown.catch(() => null));
}
