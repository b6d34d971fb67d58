import { openLanguageServers } from "../language-servers/index.js";
import type { StageContext } from "./types.js";

/**
 * Runs `work` with the job's language servers on `ctx.root` when the config enables them (see StageContext), and stops
 * every server it started when the work ends, however it ends. A server starts on first use only.
 */
export async function withLanguageServers<T>(ctx: StageContext, work: (ctx: StageContext) => Promise<T>): Promise<T> {
  const { diagnostics } = ctx.config;
  if (!diagnostics.enabled || ctx.languageServers) return await work(ctx);
  const seconds = diagnostics.timeout_seconds;
  const limits = { startMs: seconds * 1000, requestMs: seconds * 1000, memoryMb: diagnostics.memory_mb };
  // Where the repository's own commands run uncontained, by the operator's choice, the servers may too when bubblewrap
  // does not work; anywhere else they run in it or not at all.
  const allowUncontained = ctx.commands?.allowed === true && ctx.commands.sandbox.kind === "none";
  const languageServers = openLanguageServers(ctx.root, limits, { allowUncontained });
  try {
    return await work({ ...ctx, languageServers });
  } finally {
    await languageServers.stop();
  }
}
