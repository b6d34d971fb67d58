import type { Settings } from "../app/settings/settings-table.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { sandboxWanted } from "../app/create-services.js";
import { chooseSandbox, type SandboxChoice } from "../sandbox/choose-sandbox.js";

/**
 * What a local command (`magis resolve`, `magis eval --allow-commands`) runs the repository's commands in: bubblewrap
 * by default (MAGIS_SANDBOX), the user's own environment less what may be a credential with `--no-sandbox`. Without a
 * working bubblewrap the commands do not run, and the reason says how to have them run.
 */
export function localCommandPolicy(settings: Settings, env: NodeJS.ProcessEnv, noSandbox: boolean): CommandPolicy {
  const choice = chooseLocalSandbox(settings, env, noSandbox);
  if (choice.sandbox) return { allowed: true, sandbox: choice.sandbox, secrets: [settings.model.apiKey] };
  return { allowed: false, why: `no sandbox works on this machine (${choice.cause}); install bubblewrap, or pass --no-sandbox to run them as you` };
}

/** The sandbox of a local command: MAGIS_SANDBOX's, or none with `--no-sandbox`; the model's key is kept out of it. */
export function chooseLocalSandbox(settings: Settings, env: NodeJS.ProcessEnv, noSandbox: boolean): SandboxChoice {
  return chooseSandbox(sandboxWanted(settings, { env, secrets: [settings.model.apiKey], ...(noSandbox ? { mode: "none" } : {}) }));
}
