import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS } from "./bwrap-sandbox.js";
import { hostSandbox } from "./host-sandbox.js";
import type { Sandbox } from "./sandbox.js";

/** Which sandbox the operator asks for: the best that works (`auto`), bubblewrap or nothing. */
export type SandboxMode = "auto" | "bwrap" | "none";

/** What a door asks of its sandbox. */
export interface SandboxWanted {
  mode: SandboxMode;
  /** Whether a `setup_command` may reach the network. */
  setupNetwork: boolean;
  /** The environment a `none` sandbox passes on, less what may be a credential. */
  env: NodeJS.ProcessEnv;
  /** Values kept out of a `none` sandbox's environment, whatever their names. */
  secrets: readonly (string | undefined)[];
}

/** The sandbox a door runs repository commands in, or why it has none (then they do not run). */
export type SandboxChoice = { sandbox: Sandbox } | { sandbox: null; why: string; cause: string };

/**
 * Picks the sandbox once, when a door starts: `none` runs commands as they are, `bwrap` must pass its self-check (else
 * the start fails saying why), `auto` takes bubblewrap where it works and otherwise no sandbox at all: the commands do
 * not run, and `why` says what to install or set.
 */
export function chooseSandbox(wanted: SandboxWanted): SandboxChoice {
  if (wanted.mode === "none") return { sandbox: hostSandbox(wanted.env, wanted.secrets) };
  // bwrap is looked for where the door's own PATH says, as a shell there would find it; the commands get its locale.
  const made = { limits: DEFAULT_LIMITS, setupNetwork: wanted.setupNetwork, lang: wanted.env.LANG };
  const checked = checkBwrap({ ...made, searchPath: wanted.env.PATH ?? "" });
  if (checked.ok) return { sandbox: bwrapSandbox({ ...made, program: checked.program }) };
  if (wanted.mode === "bwrap") throw new SandboxUnavailableError(`MAGIS_SANDBOX=bwrap, but ${checked.why}.`);
  return {
    sandbox: null,
    why: `no sandbox works on this machine (${checked.why}); its operator can install bubblewrap, or set MAGIS_SANDBOX=none to run them uncontained`,
    cause: checked.why,
  };
}

/** The sandbox the operator asked for does not work here: the door does not start. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}
