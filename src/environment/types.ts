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
