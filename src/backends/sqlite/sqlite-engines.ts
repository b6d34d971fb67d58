import { createRequire } from "node:module";

/** The two ways this process may open a SQLite file. */
export const SQLITE_ENGINE_NAMES = ["better-sqlite3", "node:sqlite"] as const;
export type SqliteEngineName = (typeof SQLITE_ENGINE_NAMES)[number];

/** A prepared statement as both engines give one: positional parameters, rows as objects keyed by column. */
export interface EngineStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** An open file as both engines give one: the calls the store makes, and no more. */
export interface EngineConnection {
  prepare(sql: string): EngineStatement;
  exec(sql: string): void;
  close(): void;
}

/** One engine, loaded: it opens files. */
export interface SqliteEngine {
  readonly name: SqliteEngineName;
  open(file: string): EngineConnection;
}

// Loaded when first asked for, not imported: the Action's bundle runs where better-sqlite3 is not installed.
const load = createRequire(import.meta.url);

const LOADERS: Record<SqliteEngineName, () => SqliteEngine> = {
  // The native addon in the package's dependencies, built for the Node that installed it. Its JavaScript loads on any
  // Node and the addon only when a file is opened: one opened in memory shows whether the addon is this Node's.
  "better-sqlite3": () => {
    const Database = load("better-sqlite3") as new (file: string) => EngineConnection;
    new Database(":memory:").close();
    return { name: "better-sqlite3", open: (file) => new Database(file) };
  },
  // Built into Node from 22.13 and 23.4 without a flag (the Action's node24 runtime has it); not in Node 20.
  "node:sqlite": () => {
    const sqlite = process.getBuiltinModule("node:sqlite") as { DatabaseSync: new (file: string) => EngineConnection } | undefined;
    if (!sqlite) throw new Error(`not built into Node ${process.version}, only into Node 22.13 and later`);
    return { name: "node:sqlite", open: (file) => new sqlite.DatabaseSync(file) };
  },
};

/** The engine of that name, or the error that says why this process cannot load it. */
export function loadEngine(name: SqliteEngineName): SqliteEngine | Error {
  try {
    return LOADERS[name]();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

let chosen: SqliteEngine | undefined;

/**
 * The engine this process opens its files with: better-sqlite3 where it loads (the App and the command line, which
 * install it), else Node's own node:sqlite (the Action's bundle, which ships no native code). Throws, saying what to
 * do, when neither is there.
 */
export function defaultEngine(): SqliteEngine {
  if (chosen) return chosen;
  const failures: string[] = [];
  for (const name of SQLITE_ENGINE_NAMES) {
    const engine = loadEngine(name);
    if (!(engine instanceof Error)) return (chosen = engine);
    failures.push(`${name}: ${engine.message.split("\n")[0]}`);
  }
  throw new Error(
    `MAGIS keeps its records in SQLite and finds no SQLite engine in this Node (${failures.join("; ")}). ` +
      "Run it on Node 22.13 or later (the Action declares node24, which has node:sqlite), or install its dependencies (npm ci) so better-sqlite3 is there.",
  );
}
