import { UsageError } from "../lib/usage-error.js";
import fs from "node:fs";
import path from "node:path";
import type { MagisConfig } from "../config.js";
import { createLlm, type LlmClient } from "../llm/client.js";
import type { Settings } from "../app/settings/settings-table.js";
import { type CliIo } from "./io.js";
import { loadRepoConfig } from "./load-repo-config.js";
import { historyWindow, type CommitRecord } from "../git/commit-history.js";
import { readLocalHistory } from "../git/read-local-history.js";
import { openJobIndex, type JobIndex } from "../pipeline/locate/open-job-index.js";
import { TermMemo } from "../pipeline/locate/remember-terms.js";
import type { MemoryStore } from "../store/store.js";

/** A local checkout as the commands use it: its real path, which also keys the evolution memory, and its config. */
export interface Checkout {
  repo: string;
  config: MagisConfig;
}

/** Opens the checkout named by --repo; a ConfigError from its `.github/magis.yml` propagates (the dispatcher prints it). */
export function openCheckout(io: CliIo, repoFlag: string): Checkout {
  const resolved = path.resolve(io.cwd, repoFlag);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--repo ${repoFlag} is not a directory`);
  // The real path, so that `locate` and `resolve` of one checkout share their memory whatever path named it.
  const repo = fs.realpathSync(resolved);
  return { repo, config: loadRepoConfig(repo) };
}

/** The SQLite file of the evolution memory: MAGIS_DB, else `.magis/magis.db` under the working directory. */
export function memoryFile(io: CliIo, settings: Settings): string {
  return settings.store.sqliteFile ?? path.resolve(io.cwd, ".magis", "magis.db");
}

/** The model client the settings describe; a missing setup is a usage mistake, with `alternative` as another way out. */
export function makeModel(config: MagisConfig, settings: Settings, alternative = ""): LlmClient {
  try {
    return createLlm({ config, settings: settings.model });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
    throw new UsageError(`no model is configured (${reason})${alternative ? `; ${alternative}` : ""}`);
  }
}

/**
 * The checkout's recent commits for the Custodian, read with git when the checkout is a repository of its own (a
 * `.git` at its root) and its config reads history; a failed read is said on stderr and ranks without history.
 */
export function localHistory(io: CliIo, { repo, config }: Checkout): (() => Promise<CommitRecord[]>) | undefined {
  const window = historyWindow(config);
  if (!window || !fs.existsSync(path.join(repo, ".git"))) return undefined;
  return () =>
    readLocalHistory({ cwd: repo }, window).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      io.stderr(`magis: the commit history was not read (${reason}); files are ranked without it (history_months: 0 in .github/magis.yml reads none)\n`);
      return [];
    });
}

/** The command's index of the checkout (see openJobIndex): nothing is cloned, and its terms go through the store's cache with a memo of the command's own. */
export function checkoutIndex(memory: MemoryStore, config: MagisConfig): JobIndex {
  return openJobIndex({ terms: { cache: memory.index, memo: new TermMemo() }, list: { exclude: config.exclude, maxFileBytes: config.max_file_bytes } });
}
