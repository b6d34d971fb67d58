import { commandEnv } from "./command-env.js";
import { runCommand } from "./run-command.js";
import type { Sandbox } from "./sandbox.js";

/**
 * No sandbox: the commands run as this process's user, on its file system and network, in its environment less what
 * may be a credential (see commandEnv). Only where the operator says so (MAGIS_SANDBOX=none), or where the machine is
 * the repository's own and nothing else works (an Action runner without bubblewrap).
 */
export function hostSandbox(env: NodeJS.ProcessEnv, secrets: readonly (string | undefined)[]): Sandbox {
  const base = commandEnv(env, secrets);
  return {
    kind: "none",
    label: "uncontained",
    description: "without a sandbox, as the bot's own user, with its files and network (MAGIS_SANDBOX=none)",
    setupNetwork: true,
    prepare: () => undefined,
    run: (command, options) =>
      runCommand(command, { cwd: options.dir, env: { ...base, ...options.env, CI: "true" }, timeoutMs: options.timeoutMs, signal: options.signal }),
  };
}
