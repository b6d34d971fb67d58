import type { Settings } from "../app/settings/settings-table.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { chooseSandbox } from "../sandbox/choose-sandbox.js";

/**
 * What a local command (`magis resolve`, `magis eval --allow-commands`) runs the repository's commands in: bubblewrap
 * by default (MAGIS_SANDBOX), the user's own environment less what may be a credential with `--no-sandbox`. Without a
 * working bubblewrap the commands do not run, and the reason says how to have them run.
 */
export function localCommandPolicy(settings: Settings, env: NodeJS.ProcessEnv, noSandbox: boolean): CommandPolicy {
  const secrets = [settings.model.apiKey];
  const choice = chooseSandbox({
    mode: noSandbox ? "none" : settings.jobs.sandbox,
    setupNetwork: settings.jobs.sandboxSetupNetwork,
    env,
    secrets,
    container: { image: settings.jobs.sandboxImage, engine: settings.jobs.sandboxEngine },
  });
  if (choice.sandbox) return { allowed: true, sandbox: choice.sandbox, secrets };
  return { allowed: false, why: `no sandbox works on this machine (${choice.cause}); install bubblewrap, or pass --no-sandbox to run them as you` };
}
