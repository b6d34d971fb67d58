import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { ConfigError, parseConfig, type MagisConfig } from "../config.js";

/** A checkout's `.github/magis.yml` with defaults applied (the defaults when it has none); throws a ConfigError listing every problem. */
export function loadRepoConfig(repo: string): MagisConfig {
  const file = path.join(repo, ".github", "magis.yml");
  if (!fs.existsSync(file)) return parseConfig({});
  let raw: unknown;
  try {
    raw = parseYaml(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError([{ path: "", message: `not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` }], file);
  }
  return parseConfig(raw, file);
}
