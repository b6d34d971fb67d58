import {
  DeclarationError,
  environmentKey,
  hashKeyFiles,
  readEnvironmentDeclaration,
  sandboxBase,
  type EnvironmentDeclaration,
  type EnvironmentKeyParts,
} from "../../environment/index.js";
import type { Sandbox } from "../../sandbox/index.js";
import type { StageContext } from "../types.js";

/**
 * The repository's declared environment (first found wins: `environment:`, devcontainer.json, copilot-setup-steps.yml,
 * `setup_command`), null when it declares none, or why its declaration cannot be used.
 */
export function declaredEnvironment(ctx: Pick<StageContext, "root" | "config">): EnvironmentDeclaration | null | { unusable: string } {
  try {
    return readEnvironmentDeclaration(ctx.root, ctx.config);
  } catch (error) {
    if (error instanceof DeclarationError) return { unusable: error.message };
    throw error;
  }
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
    network: input.sandbox.setupNetwork
      ? { allowed: [...input.sandbox.setupAllowHosts].sort(), narrowed: declaration.network ? [...declaration.network].sort() : null }
      : { allowed: [], narrowed: null },
  };
  return { key: environmentKey(parts), parts };
}
