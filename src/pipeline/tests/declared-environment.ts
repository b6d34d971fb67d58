import { environmentKey, hashKeyFiles, sandboxBase, type EnvironmentDeclaration, type EnvironmentKeyParts } from "../../environment/index.js";
import type { Sandbox } from "../../sandbox/index.js";
import type { StageContext } from "../types.js";

/** The manifests and lockfiles whose change makes an environment built from `setup_command` stale. */
const SETUP_COMMAND_KEY_FILES = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements*.txt",
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
];

/** The repository's declared environment: its `setup_command` as one setup step; null when it declares none. */
export function declaredEnvironment(ctx: Pick<StageContext, "config">): EnvironmentDeclaration | null {
  const setup = ctx.config.setup_command;
  if (!setup) return null;
  return {
    source: ".github/magis.yml setup_command",
    setup: [{ name: "setup_command", command: setup }],
    maintenance: [],
    env: {},
    keyFiles: SETUP_COMMAND_KEY_FILES,
    network: null,
    unsupported: [],
    shadowed: [],
  };
}

/**
 * The key an environment is kept under, and what it was made of: the setup's commands, the variables the commands get,
 * the key files' blob ids in this checkout, and what the sandbox runs on.
 */
export function keyOfEnvironment(
  declaration: EnvironmentDeclaration,
  input: { root: string; env: Record<string, string>; sandbox: Sandbox },
): { key: string; parts: EnvironmentKeyParts } {
  const parts: EnvironmentKeyParts = {
    setup: declaration.setup.map((step) => step.command),
    env: input.env,
    keyFiles: hashKeyFiles(input.root, declaration.keyFiles),
    sandbox: { kind: input.sandbox.kind, base: sandboxBase(input.sandbox) },
  };
  return { key: environmentKey(parts), parts };
}
