import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { ConfigError, parseConfig, type MagisConfig } from "../config.js";

/** Keys a command's flags set over the file's (`magis resolve --test-command` is test_command), checked by the same schema. */
export type ConfigOverrides = Partial<Record<keyof MagisConfig, unknown>>;

/**
 * A checkout's `.github/magis.yml` with `overrides` over its keys and defaults applied (the defaults when it has none):
 * an override goes through the schema as if the file held it. Throws a ConfigError listing every problem.
 */
export function loadRepoConfig(repo: string, overrides: ConfigOverrides = {}): MagisConfig {
  const file = path.join(repo, ".github", "magis.yml");
  if (!fs.existsSync(file)) return parseConfig(overrides);
  let raw: unknown;
  try {
    raw = parseYaml(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError([{ path: "", message: `not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` }], file);
  }
  // A file that is not a mapping is refused as it stands: no flag mends it.
  const isMapping = typeof raw === "object" && raw !== null && !Array.isArray(raw);
  return parseConfig(raw === null || raw === undefined ? overrides : isMapping ? { ...raw, ...overrides } : raw, file);
}
