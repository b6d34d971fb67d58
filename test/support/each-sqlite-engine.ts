import { describe } from "vitest";
import { loadEngine, SQLITE_ENGINE_NAMES, type SqliteEngine, type SqliteEngineName } from "../../src/backends/sqlite/sqlite-engines.js";

/** The SQLite engines this Node loads: better-sqlite3 (installed), and node:sqlite from Node 22.13 on. */
export function loadableEngines(): SqliteEngine[] {
  return SQLITE_ENGINE_NAMES.map((name) => loadEngine(name)).filter((engine): engine is SqliteEngine => !(engine instanceof Error));
}

/** The engines this Node should load: test/unit/backends/sqlite/sqlite-engines.test.ts checks that it loads exactly these. */
export function expectedEngines(): SqliteEngineName[] {
  return process.getBuiltinModule("node:sqlite") ? ["better-sqlite3", "node:sqlite"] : ["better-sqlite3"];
}

/**
 * Declares `suite` once for each SQLite engine this Node loads (Node 20: better-sqlite3; Node 22.13 and later: both).
 * The Action's node:sqlite is run by these suites on such a Node (CI's matrix has Node 22), and by the Action's
 * bundle under Node 24 (MAGIS_ACTION_NODE, see docs/action.md).
 */
export function forEachSqliteEngine(suite: (engine: SqliteEngine) => void): void {
  for (const engine of loadableEngines()) describe(`on ${engine.name}`, () => suite(engine));
}
