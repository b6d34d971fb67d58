import fs from "node:fs";
import path from "node:path";
import type { MagisConfig } from "../config.js";
import { COPILOT_SETUP_FILE, fromCopilotSetupSteps } from "./declare/from-copilot-setup-steps.js";
import { DEVCONTAINER_FILES, fromDevcontainer } from "./declare/from-devcontainer.js";
import { fromEnvironmentKey, fromSetupCommand } from "./declare/from-magis-config.js";
import { findKeyFiles } from "./declare/find-key-files.js";
import { declarationFileThere } from "./declare/read-plain-file.js";
import type { SourceDeclaration } from "./declare/source-declaration.js";
import type { EnvironmentDeclaration, EnvironmentSource } from "./types.js";

/** One place an environment may be declared: whether it is there (cheap), and what it declares (read only when used). */
interface Place {
  source: EnvironmentSource;
  there: () => boolean;
  read: () => SourceDeclaration;
}

/**
 * The repository's declared environment, read from the checkout at `root` and its parsed `.github/magis.yml`; null when
 * nothing declares one. The first place found wins, in this order: `environment:` in magis.yml,
 * `.devcontainer/devcontainer.json`, `.devcontainer.json`, `.github/workflows/copilot-setup-steps.yml`, then
 * `setup_command`; each other place found is named in `shadowed`, unread. Throws a DeclarationError when the winning
 * file cannot be read as a declaration.
 */
export function readEnvironmentDeclaration(root: string, config: MagisConfig): EnvironmentDeclaration | null {
  const places: Place[] = [
    { source: ".github/magis.yml environment", there: () => config.environment !== undefined, read: () => fromEnvironmentKey(config)! },
    ...DEVCONTAINER_FILES.map((file) => ({ source: file, there: () => declarationFileThere(root, file), read: () => fromDevcontainer(root, file) })),
    { source: COPILOT_SETUP_FILE, there: () => declarationFileThere(root, COPILOT_SETUP_FILE), read: () => fromCopilotSetupSteps(root) },
    { source: ".github/magis.yml setup_command", there: () => config.setup_command !== undefined, read: () => fromSetupCommand(config)! },
  ];
  const found = places.filter((place) => place.there());
  const [winner, ...others] = found;
  if (!winner) return null;
  const { ownFiles, keyFiles, ...declared } = winner.read();
  return {
    ...declared,
    keyFiles: keyFiles ?? [...new Set([...findKeyFiles(root), ...ownFiles.filter((file) => isFile(root, file))])].sort(),
    shadowed: others.map((other) => `${other.source} (not used: the first found, ${winner.source}, wins)`),
  };
}

function isFile(root: string, relative: string): boolean {
  try {
    const stat = fs.lstatSync(path.join(root, relative));
    return stat.isFile() || stat.isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The report's sentence on a declaration: where it came from, what it runs, and what of it is not used.
 * "from .devcontainer/devcontainer.json: 3 setup steps, 1 maintenance; not used: `features` (…) are not installed: …"
 */
export function describeDeclaration(declaration: EnvironmentDeclaration): string {
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const parts = [count(declaration.setup.length, "setup step"), `${declaration.maintenance.length} maintenance`];
  const names = Object.keys(declaration.env).length;
  if (names > 0) parts.push(count(names, "variable"));
  if (declaration.network) parts.push(`network narrowed to ${count(declaration.network.length, "host")}`);
  let sentence = `from ${declaration.source}: ${parts.join(", ")}`;
  if (declaration.unsupported.length > 0) sentence += `; not used: ${declaration.unsupported.join("; ")}`;
  if (declaration.shadowed.length > 0) sentence += `; also found: ${declaration.shadowed.join("; ")}`;
  return sentence;
}
