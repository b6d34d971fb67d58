import { bwrapSandbox, checkBwrap } from "./bwrap-sandbox.js";
import { checkContainer, containerSandbox } from "./container-sandbox.js";
import { findProgram } from "./find-program.js";
import { parseHostPattern } from "./host-patterns.js";
import { hostSandbox } from "./host-sandbox.js";
import type { BotPath, Sandbox } from "./sandbox.js";
import { DEFAULT_LIMITS } from "./sandbox-limits.js";

/** Which sandbox the operator asks for: the best that works (`auto`), bubblewrap, a container, or nothing. */
export type SandboxMode = "auto" | "bwrap" | "container" | "none";

/** What a door asks of its sandbox. */
export interface SandboxWanted {
  mode: SandboxMode;
  /** Whether a setup may reach the network, through the bot's proxy (MAGIS_SANDBOX_SETUP_NETWORK). */
  setupNetwork: boolean;
  /** The operator's MAGIS_SETUP_ALLOW_HOSTS: a list given turns the setup's network on (see setupAllowList). */
  setupAllowHosts?: readonly string[];
  /** The environment a `none` sandbox passes on, less what may be a credential. */
  env: NodeJS.ProcessEnv;
  /** Values kept out of a `none` sandbox's environment, whatever their names. */
  secrets: readonly (string | undefined)[];
  /** The bot's own files and folders, which bubblewrap hides where the system folders would show them. */
  botPaths: readonly BotPath[];
  /** For `container`: the image, and the engine's command line before `run` (default: podman, else docker, on PATH). */
  container?: { image: string | undefined; engine: string | undefined };
}

/** The sandbox a door runs repository commands in, or why it has none (then they do not run). */
export type SandboxChoice = { sandbox: Sandbox } | { sandbox: null; why: string; cause: string };

/**
 * Picks the sandbox once, when a door starts: `none` runs commands as they are, `bwrap` must pass its self-check (else
 * the start fails saying why), `auto` takes bubblewrap where it works and otherwise no sandbox at all: the commands do
 * not run, and `why` says what to install or set.
 */
export function chooseSandbox(wanted: SandboxWanted): SandboxChoice {
  checkAllowHosts(wanted.setupAllowHosts ?? []);
  if (wanted.mode === "none") return { sandbox: hostSandbox(wanted.env, wanted.secrets) };
  if (wanted.mode === "container") return { sandbox: chooseContainer(wanted) };
  // bwrap is looked for where the door's own PATH says, as a shell there would find it; the commands get its locale.
  const made = {
    limits: DEFAULT_LIMITS,
    setupNetwork: wanted.setupNetwork,
    setupAllowHosts: wanted.setupAllowHosts,
    lang: wanted.env.LANG,
    hostPath: wanted.env.PATH,
    hide: wanted.botPaths.map((bot) => bot.path),
  };
  const checked = checkBwrap({ ...made, searchPath: wanted.env.PATH ?? "" });
  if (checked.ok) return { sandbox: bwrapSandbox({ ...made, program: checked.program }) };
  if (wanted.mode === "bwrap") throw new SandboxUnavailableError(`MAGIS_SANDBOX=bwrap, but ${checked.why}.`);
  return {
    sandbox: null,
    why: `no sandbox works on this machine (${checked.why}); its operator can install bubblewrap, or set MAGIS_SANDBOX=none to run them uncontained`,
    cause: checked.why,
  };
}

/** A wrong pattern in MAGIS_SETUP_ALLOW_HOSTS stops the door at its start, quoted, rather than every setup later. */
function checkAllowHosts(hosts: readonly string[]): void {
  for (const host of hosts) {
    try {
      parseHostPattern(host);
    } catch (error) {
      throw new SandboxUnavailableError(`MAGIS_SETUP_ALLOW_HOSTS: ${(error as Error).message}.`);
    }
  }
}

/** The sandbox the operator asked for does not work here: the door does not start. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

function chooseContainer(wanted: SandboxWanted): Sandbox {
  const image = wanted.container?.image;
  if (!image) throw new SandboxUnavailableError("MAGIS_SANDBOX=container needs MAGIS_SANDBOX_IMAGE: the image (on this machine) the commands run in.");
  const words = wanted.container?.engine?.trim().split(/\s+/).filter(Boolean) ?? [];
  const searchPath = wanted.env.PATH ?? "";
  const found = findProgram("podman", searchPath) ?? findProgram("docker", searchPath);
  const engine = (words.length > 0 ? words : found ? [found] : []) as string[];
  if (engine.length === 0)
    throw new SandboxUnavailableError("MAGIS_SANDBOX=container, but neither podman nor docker is on PATH; install one, or name it in MAGIS_SANDBOX_ENGINE.");
  const made = { engine: engine as [string, ...string[]], image, limits: DEFAULT_LIMITS, setupNetwork: wanted.setupNetwork, lang: wanted.env.LANG };
  const checked = checkContainer(made);
  if (!checked.ok) throw new SandboxUnavailableError(`MAGIS_SANDBOX=container, but ${checked.why}.`);
  return containerSandbox(made);
}
