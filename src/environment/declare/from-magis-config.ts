import type { MagisConfig } from "../../config.js";
import type { EnvironmentStep } from "../types.js";
import type { SourceDeclaration } from "./source-declaration.js";

/** The `environment:` key of `.github/magis.yml`, already checked by the config's schema; null when it is not set. */
export function fromEnvironmentKey(config: MagisConfig): SourceDeclaration | null {
  const declared = config.environment;
  if (!declared) return null;
  return {
    source: ".github/magis.yml environment",
    setup: steps("setup", declared.setup),
    maintenance: steps("maintenance", declared.maintenance),
    env: { ...declared.env },
    keyFiles: declared.key_files ? [...declared.key_files] : null,
    network: declared.network ? [...declared.network] : null,
    unsupported: [],
    ownFiles: [],
  };
}

/** `setup_command`, the shorthand: one setup step. */
export function fromSetupCommand(config: MagisConfig): SourceDeclaration | null {
  if (!config.setup_command) return null;
  return {
    source: ".github/magis.yml setup_command",
    setup: [{ name: "setup_command", command: config.setup_command }],
    maintenance: [],
    env: {},
    keyFiles: null,
    network: null,
    unsupported: [],
    ownFiles: [],
  };
}

/** A command or a list of them as steps named `setup[1]`, `setup[2]`, …, by their place in the key. */
function steps(key: string, commands: string | string[] | undefined): EnvironmentStep[] {
  const list = commands === undefined ? [] : typeof commands === "string" ? [commands] : commands;
  return list.map((command, at) => ({ name: `${key}[${at + 1}]`, command }));
}
