import type { Settings } from "../app/settings/settings-table.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { sandboxWanted } from "../app/create-services.js";
import { chooseSandbox, type SandboxWanted } from "../sandbox/index.js";

/**
 * What a local command (`magis resolve`, `magis eval --allow-commands`) runs the repository's commands in: bubblewrap
 * by default (MAGIS_SANDBOX), the user's own environment less what may be a credential with `--no-sandbox`. Without a
 * working bubblewrap the commands do not run, and the reason says how to have them run.
 */
export function localCommandPolicy(settings: Settings, env: NodeJS.ProcessEnv, noSandbox: boolean): CommandPolicy {
  const choice = chooseSandbox(localSandboxWanted(settings, env, noSandbox));
  if (choice.sandbox) return { allowed: true, sandbox: choice.sandbox, secrets: [settings.model.apiKey] };
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
