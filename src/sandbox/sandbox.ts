import type { CommandRun } from "./run-command.js";

/** What holds a repository's commands: bubblewrap namespaces, a container, or nothing (the operator said so). */
export type SandboxKind = "bwrap" | "container" | "none";

/** A file or folder of the bot itself (its key, its .env, its database, its working directory…), which no command may see. */
export interface BotPath {
  /** What it is, after "read" in a probe's line: "the bot's private key". */
  what: string;
  /** Where it is on the host: absolute, and perhaps not there (yet). */
  path: string;
}

/** One command's run in a sandbox. */
export interface SandboxRun {
  /** The folder the command runs in and may change: a copy of the checkout, made for it. */
  dir: string;
  /** Variables the repository's config gives its commands (`test_env`), beside the sandbox's own few. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Aborting kills the command with everything it started (the job was cancelled or ran out of time). */
  signal?: AbortSignal;
  /**
   * The setup's way out, where the operator allows it: the bot's allowlisting proxy, whose Unix socket is the only
   * thing of the host's network the command may reach. Absent for everything else (tests, reproductions, candidates):
   * no network at all.
   */
  network?: SetupNetwork;
  /**
   * A folder of the host's shown to the command, read-write, as its HOME, at one path for every run (/tmp/home): an
   * environment's per-repository home and caches (pip's, npm's). The caller makes it and hands it to `prepare` as it
   * does the copy (run as root, that gives it to the sandbox's user); absent: HOME is an empty folder in the private
   * /tmp.
   */
  home?: string;
}

/** How a setup reaches the network: only through the bot's proxy (see startSetupProxy). */
export interface SetupNetwork {
  /**
   * The proxy's Unix socket on the host, in a folder of the proxy's own that the sandbox shows the setup read-only,
   * with the bridge script startSetupProxy writes beside it.
   */
  socket: string;
}

/** Where every command of a repository runs: setup, tests, and what later stages run. */
export interface Sandbox {
  readonly kind: SandboxKind;
  /** How they run, as a phrase after "they ran" (the report, /readyz): what holds them, what they may reach. */
  readonly description: string;
  /** The same in two words, for a status line: "in bubblewrap", "uncontained". */
  readonly label: string;
  /**
   * Whether a setup may reach the network, through the bot's proxy: the operator allows it (MAGIS_SANDBOX_SETUP_NETWORK
   * or MAGIS_SETUP_ALLOW_HOSTS) and this backend can give it (the container backend cannot).
   */
  readonly setupNetwork: boolean;
  /**
   * The hosts the setup's proxy may let through (MAGIS_SETUP_ALLOW_HOSTS, else the default registries): what a door
   * hands startSetupProxy as `allow`. Empty when setupNetwork is false, and where a setup reaches the network without
   * a proxy (MAGIS_SANDBOX=none): a door starts a proxy for a setup only when this lists hosts.
   */
  readonly setupAllowHosts: readonly string[];
  /** Makes a fresh copy of the checkout usable by the commands (its owner, when they run as another user). */
  prepare(dir: string): void;
  /** Runs a shell command; never rejects (a failure to start is an `error` run). */
  run(command: string, options: SandboxRun): Promise<CommandRun>;
}

/** Hosts a setup reached or was refused through the proxy. */
export interface HostTally {
  host: string;
  /** Connections or requests. */
  count: number;
  /** Bytes both ways (reached only). */
  bytes: number;
  /** Why it was refused: "not in MAGIS_SETUP_ALLOW_HOSTS", "a loopback address", … (refused only). */
  why?: string;
}

/** What the setup's proxy saw. */
export interface NetworkTally {
  /** The first hosts reached, at most 50. */
  reached: HostTally[];
  /** The first hosts refused, at most 50. */
  refused: HostTally[];
  /** Requests and connections to hosts reached past the first 50, not named (absent: none). */
  otherReached?: number;
  /** Requests and connections refused for hosts past the first 50, not named (absent: none). */
  otherRefused?: number;
}
