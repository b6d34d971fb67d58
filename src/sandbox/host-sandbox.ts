import { commandEnv } from "./command-env.js";
import { runCommand } from "./run-command.js";
import type { Sandbox } from "./sandbox.js";

/**
 * No sandbox: the commands run as this process's user, on its file system and network, in its environment less what
 * may be a credential (see commandEnv). Only where the operator says so (MAGIS_SANDBOX=none), or where the machine is
 * the repository's own and nothing else works (an Action runner without bubblewrap). A setup's network is the host's:
 * nothing contains the commands, so no proxy would hold them either, and `run.network` is not used; `run.home` is
 * their HOME as it is.
 */
export function hostSandbox(env: NodeJS.ProcessEnv, secrets: readonly (string | undefined)[]): Sandbox {
  const base = commandEnv(env, secrets);
  return {
    kind: "none",
    label: "uncontained",
    description: "without a sandbox, as the bot's own user, with its files and network, the setup's not through the bot's proxy (MAGIS_SANDBOX=none)",
    setupNetwork: true,
    setupAllowHosts: [],
    prepare: () => undefined,
    run: (command, options) =>
      runCommand(command, {
        cwd: options.dir,
        env: { ...base, ...options.env, ...(options.home ? { HOME: options.home } : {}), CI: "true" },
        timeoutMs: options.timeoutMs,
        signal: options.signal,
      }),
  };
}
