import fs from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, parseConfig } from "../config.js";
import type { ConfigOverrides } from "../cli/load-repo-config.js";
import { EvalInputError, type BenchInstance } from "./read-instances.js";

/** The keys of `.github/magis.yml` an environments file may set for an instance: its environment and its tests. */
const ENVIRONMENT_KEYS = ["environment", "setup_command", "test_command", "test_env", "test_timeout_seconds"] as const;

/** The version an entry stands for when no entry names the instance's own. */
const ANY_VERSION = "*";

/** Per repository (`owner/name`), per version (SWE-bench's `version`, or `*`): the config keys its instances get. */
export type EnvironmentTable = ReadonlyMap<string, ReadonlyMap<string, ConfigOverrides>>;

const entryShape = z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown())));

/**
 * Reads `magis eval --environments FILE`: how each repository's instances are set up, as SWE-bench's harness specifies
 * it per repository and version — JSON or YAML, a mapping of `owner/name` to a mapping of version (or `*`, any other
 * version) to the keys of `.github/magis.yml` that declare an environment and its tests:
 *
 *     pallets/flask:
 *       "2.0":
 *         environment:
 *           env: { PIP_BREAK_SYSTEM_PACKAGES: "1" }
 *           setup: [python3 -m pip install --user --no-deps --no-build-isolation --no-index -e .]
 *         test_command: python3 -m pytest -q
 *
 * (into the user site, where the `python3` of the tests and the reproductions finds it: the sandbox's PATH is its own,
 * so a virtual environment's python is not the one they start; see docs/evaluation.md).
 *
 * Each entry is checked by the config's own schema, so a mistake is refused before anything runs, with the file and the
 * entry it is in. An entry wins over the checkout's own `.github/magis.yml` for the keys it sets.
 */
export function readEnvironmentsFile(file: string): EnvironmentTable {
  let raw: unknown;
  try {
    raw = parseYaml(fs.readFileSync(file, "utf8"));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new EvalInputError(`--environments ${file} is neither JSON nor YAML (${reason}): expected a mapping of owner/name to versions to config keys`);
  }
  const shaped = entryShape.safeParse(raw);
  if (!shaped.success) {
    throw new EvalInputError(
      `--environments ${file} is not a mapping of repository (owner/name) to version (or "*") to config keys (${ENVIRONMENT_KEYS.join(", ")}): ${shaped.error.issues[0]?.message ?? "wrong shape"}`,
    );
  }
  const table = new Map<string, Map<string, ConfigOverrides>>();
  for (const [repo, versions] of Object.entries(shaped.data)) {
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new EvalInputError(`--environments ${file}: '${repo}' is not a repository's owner/name`);
    const byVersion = new Map<string, ConfigOverrides>();
    for (const [version, entry] of Object.entries(versions)) {
      const where = `${file} ${repo} ${JSON.stringify(version)}`;
      const unknown = Object.keys(entry).filter((key) => !(ENVIRONMENT_KEYS as readonly string[]).includes(key));
      if (unknown.length > 0)
        throw new EvalInputError(
          `--environments ${where}: ${unknown.map((key) => `'${key}'`).join(", ")} may not be set here; only ${ENVIRONMENT_KEYS.join(", ")}`,
        );
      try {
        parseConfig(entry, where);
      } catch (error) {
        if (error instanceof ConfigError) throw new EvalInputError(`--environments ${error.message}`);
        throw error;
      }
      byVersion.set(version, entry as ConfigOverrides);
    }
    table.set(repo, byVersion);
  }
  return table;
}

/** The config keys an instance gets from the table: its repository's entry for its version, else for `*`; null when none. */
export function environmentOf(table: EnvironmentTable, instance: Pick<BenchInstance, "repo" | "version">): ConfigOverrides | null {
  const versions = table.get(instance.repo);
  if (!versions) return null;
  return (instance.version !== undefined ? versions.get(String(instance.version)) : undefined) ?? versions.get(ANY_VERSION) ?? null;
}
