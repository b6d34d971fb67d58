import type { Settings } from "../app/settings/settings-table.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { sandboxWanted } from "../app/create-services.js";
import { environmentShelfFor } from "../app/open-environments.js";
import { chooseSandbox, type SandboxWanted } from "../sandbox/index.js";

/**
 * What a local command (`magis resolve`, `magis eval --allow-commands`) runs the repository's commands in: bubblewrap
 * by default (MAGIS_SANDBOX), the user's own environment less what may be a credential with `--no-sandbox`. Without a
 * working bubblewrap the commands do not run, and the reason says how to have them run. Given the checkout (`magis
 * resolve`), its environment is kept for the next run on it as MAGIS_ENV_DIR and MAGIS_ENV_CACHE_MB say.
 */
export function localCommandPolicy(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  noSandbox: boolean,
  checkout?: { root: string; cwd: string; stderr: (text: string) => void },
): CommandPolicy {
  const choice = chooseSandbox(localSandboxWanted(settings, env, noSandbox));
  if (choice.sandbox) {
    const environments = checkout && environmentShelfFor(settings, { cwd: checkout.cwd, log: lineLog(checkout.stderr) });
    const kept = environments && { environments, scope: { repo: checkout.root } };
    return { allowed: true, sandbox: choice.sandbox, secrets: [settings.model.apiKey], ...kept };
  }
  return { allowed: false, why: `no sandbox works on this machine (${choice.cause}); install bubblewrap, or pass --no-sandbox to run them as you` };
}

/**
 * What a local command asks of its sandbox: MAGIS_SANDBOX's, or none with `--no-sandbox`; the model's key is kept out
 * of it, and the bot's paths of `door` (default: this process's working directory and its .env) are hidden.
 */
export function localSandboxWanted(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  noSandbox: boolean,
  door: { cwd?: string; envFile?: string } = {},
): SandboxWanted {
  return sandboxWanted(settings, { env, secrets: [settings.model.apiKey], ...door, ...(noSandbox ? { mode: "none" } : {}) });
}

/** A log for the command line: each line on stderr, its fields left out. */
export function lineLog(stderr: (text: string) => void): { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void } {
  return { info: (_, msg) => stderr(`magis: ${msg}\n`), warn: (_, msg) => stderr(`magis: ${msg}\n`) };
}
