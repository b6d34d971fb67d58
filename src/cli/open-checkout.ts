import { UsageError } from "../lib/usage-error.js";
import fs from "node:fs";
import path from "node:path";
import type { MagisConfig } from "../config.js";
import { createLlm, type LlmClient } from "../llm/client.js";
import { UnpricedModelError } from "../llm/cost-errors.js";
import type { Settings } from "../app/settings/settings-table.js";
import { type CliIo } from "./io.js";
import { loadRepoConfig, type ConfigOverrides } from "./load-repo-config.js";
import { historyWindow, type CommitRecord } from "../git/commit-history.js";
import { readLocalHistory } from "../git/read-local-history.js";
import { openJobIndex, TermMemo, type JobIndex } from "../pipeline/index.js";
import type { MemoryStore, Store } from "../store/store.js";
import { openBackend } from "../backends/open-backend.js";

/** A local checkout as the commands use it: its real path, which also keys the evolution memory, and its config. */
export interface Checkout {
  repo: string;
  config: MagisConfig;
}

/**
 * Opens the checkout named by --repo, its config the `.github/magis.yml` it holds with the command's `overrides` over
 * it; a ConfigError propagates (the dispatcher prints it).
 */
export function openCheckout(io: CliIo, repoFlag: string, overrides: ConfigOverrides = {}): Checkout {
  const resolved = path.resolve(io.cwd, repoFlag);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--repo ${repoFlag} is not a directory`);
  // The real path, so that `locate` and `resolve` of one checkout share their memory whatever path named it.
  const repo = fs.realpathSync(resolved);
  return { repo, config: loadRepoConfig(repo, overrides) };
}

/** Where the evolution memory is kept, as each command's --help says it. */
export const MEMORY_HELP = `The evolution memory (file summaries and the index cache, which later runs reuse) is kept in the
PostgreSQL database DATABASE_URL names, else in the SQLite file MAGIS_DB, by default magis/magis.db in the
user's cache folder: $XDG_CACHE_HOME/magis/magis.db, else ~/.cache/magis/magis.db. Never in the working folder.`;

/**
 * The store of the evolution memory, migrated: the PostgreSQL database DATABASE_URL names, else the SQLite file MAGIS_DB,
 * else magis.db in the bot's state folder (see defaultDatabasePath), never the working folder, which may be any
 * checkout the command is run from.
 */
export async function openMemoryStore(settings: Settings): Promise<Store> {
  const { store } = await openBackend(settings.store, { answersWebhooks: false });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

// What a user without a model setup can do: point at one (a local server needs no key), or use what needs none.
const NO_MODEL_HELP = `Point it at a model:
  a hosted one:  OPENAI_API_KEY=<your key>  (MAGIS_MODEL names the model, gpt-4o-mini by default)
  Ollama:        OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MAGIS_MODEL=<a model you pulled, e.g. qwen2.5-coder:7b>
  vLLM:          OPENAI_BASE_URL=http://127.0.0.1:8000/v1 MAGIS_MODEL=<the model it serves>
  any other OpenAI-compatible server (llama.cpp, LM Studio, Azure): OPENAI_BASE_URL, and OPENAI_API_KEY if it asks for one
Or work without one:
  magis locate --bm25-only   ranks the checkout's files for the issue (no summaries, no relevance check)
  magis eval --oracle        runs the pipeline on SWE-bench instances, every answer taken from their gold patches
  npm run demo               (in a clone of MAGIS) the whole pipeline on an example repository, with scripted answers`;

/**
 * The model client the settings describe, its calls stopped by `signal` when given; a missing setup is a usage mistake,
 * answered with the ways to set one up or do without.
 */
export function makeModel(config: MagisConfig, settings: Settings, signal?: AbortSignal): LlmClient {
  try {
    return createLlm({ config, settings: settings.model, ...(signal ? { signal } : {}) });
  } catch (error) {
    // A dollar budget over a model without a price is set up wrongly, not missing: its message says what to set.
    if (error instanceof UnpricedModelError) throw new UsageError(error.message);
    throw new UsageError(`no model is configured: ${error instanceof Error ? error.message : String(error)}`, NO_MODEL_HELP);
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
