import type { NetworkTally } from "../sandbox/sandbox.js";

/**
 * A repository's environment: how its code is set up (declared in `.github/magis.yml`, or read from what the repository
 * already has), and the kept environments built from such declarations.
 */

/** Where a declaration was read from, first found wins in this order. */
export type EnvironmentSource =
  | ".github/magis.yml environment"
  | ".devcontainer/devcontainer.json"
  | ".devcontainer.json"
  | ".github/workflows/copilot-setup-steps.yml"
  | ".github/magis.yml setup_command";

/** One setup or maintenance step: a shell command, run at the repository's root inside the sandbox. */
export interface EnvironmentStep {
  /** Where it came from, for the report: "onCreateCommand", "postCreateCommand.deps", "setup[2]", "step “Install”". */
  name: string;
  /** The shell text (`/bin/sh -c`); a devcontainer array is quoted into one, parallel commands are joined to run at once. */
  command: string;
}

/** What a repository declares of its environment. */
export interface EnvironmentDeclaration {
  source: EnvironmentSource;
  /** Run in order when the environment is built, with the setup's network (the proxy). */
  setup: EnvironmentStep[];
  /** Run in order when a kept environment is reused on newer code, with the setup's network. */
  maintenance: EnvironmentStep[];
  /** Non-secret variables every command gets (setup, tests, reproductions), beside the sandbox's own few. */
  env: Record<string, string>;
  /**
   * The files whose contents make a kept environment stale, as paths or globs relative to the root; the default is the
   * manifests and lockfiles of the ecosystems found in the tree (package.json, package-lock.json, pyproject.toml, …).
   */
  keyFiles: string[];
  /** The hosts the repository asks the setup to reach; null: whatever the operator allows. Only ever narrows. */
  network: string[] | null;
  /** A container image the declaration names (devcontainer `image`, or `build.dockerfile`), for the container backend. */
  image?: { image: string } | { dockerfile: string; context: string };
  /**
   * What the declaration holds that MAGIS does not do, each as a sentence for the report: "`features` (ghcr.io/…/python:1)
   * is not installed: declare what it installs in `postCreateCommand`".
   */
  unsupported: string[];
  /** Other declarations found and not used (first found wins): ".devcontainer/devcontainer.json (not used: …)". */
  shadowed: string[];
}

/**
 * Which repository a kept environment belongs to: its GitHub name and installation (the App, the Action), or a local
 * checkout's folder (the CLI, eval).
 */
export interface EnvironmentScope {
  /** `owner/name`, or the checkout's absolute folder for a local run. */
  repo: string;
  /** The App installation it was built for; removing the installation removes its environments. */
  installationId?: number;
}

/** What is recorded of a kept environment beside its files. */
export interface KeptEnvironmentRecord {
  scope: EnvironmentScope;
  /** The key it was kept under (hex). */
  key: string;
  /** What the key was made of, for `magis env show`: the declaration's source, steps, env names, key files' blob ids, sandbox base. */
  keyParts: Record<string, unknown>;
  source: EnvironmentSource;
  /** When it was built, and last used (ISO 8601). */
  builtAt: string;
  usedAt: string;
  /** How long its setup took. */
  buildSeconds: number;
  /** Bytes on disk: the set-up copy and the home. */
  bytes: number;
  /** The checkout's own files when it was built (paths relative to the root): what a later checkout's files replace. */
  checkoutFiles: string[];
  /** The hosts its setup reached and was refused. */
  network?: NetworkTally;
}

/** How a kept folder was laid under a job's copy: as the read-only lower layer of an overlay, or copied. */
export type LayeredHow = "overlay" | "fuse-overlayfs" | "copy";

/**
 * A kept environment, found under its key: read-only folders, laid under a job's copy as an overlay's lower layer or
 * copied from, never run in.
 */
export interface KeptEnvironment {
  record: KeptEnvironmentRecord;
  /** The set-up copy of the checkout (what setup wrote: a virtualenv, node_modules, built extensions). */
  repoDir: string;
  /** The per-repository home folder the setup wrote (caches, user installs). */
  homeDir: string;
}

/**
 * The kept environments of this process (each worker keeps its own), bounded in total size with least-recently-used
 * eviction. Counted for /metrics.
 */
export interface EnvironmentShelf {
  /** The bound on the bytes kept in all (MAGIS_ENV_CACHE_MB); 0: keeping is off, and `keep` keeps nothing. */
  readonly maxBytes: number;
  /** The environment kept under `key` for this scope, marked used (a hit), or null (a miss). Held until `release`. */
  find(scope: EnvironmentScope, key: string): KeptEnvironment | null;
  /** Lets eviction remove an environment `find` handed out. */
  release(found: KeptEnvironment): void;
  /**
   * Keeps a copy of these folders (right after setup) under the key, replacing what was there, then evicts the least
   * recently used beyond the bound. Copies; the caller's folders stay its own. Resolves once kept, or with null when
   * it is not kept: keeping is off (`maxBytes` 0), or the environment alone is bigger than `maxBytes`.
   */
  keep(entry: {
    scope: EnvironmentScope;
    key: string;
    repoDir: string;
    homeDir: string;
    record: Omit<KeptEnvironmentRecord, "scope" | "key" | "bytes" | "usedAt">;
  }): Promise<KeptEnvironment | null>;
  /** Every kept environment, most recently used first (optionally one scope's). */
  list(scope?: Partial<EnvironmentScope>): KeptEnvironmentRecord[];
  /** Removes the kept environments of a scope (a repository's, or an installation's), returning how many. */
  remove(scope: Partial<EnvironmentScope>): number;
  /** Resolves once the folders removed so far (replaced, evicted, removed) are gone from the disk. */
  settled(): Promise<void>;
  /** Says a problem the caller could not raise (a job's copy that stayed mounted) where the shelf logs. */
  warn?(obj: object, msg: string): void;
  /** Counts for /metrics. */
  stats(): { hits: number; misses: number; builds: number; buildSeconds: number; bytes: number; kept: number; evicted: number };
}
