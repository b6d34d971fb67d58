import type { Diagnostic, Location, Position, ProtocolConnection } from "vscode-languageserver-protocol/node.js";

/**
 * The languages a server checks: Python with Pyright, JavaScript and TypeScript with the TypeScript server. Each has
 * its spec in server-specs.ts, and its refusing rules in config.ts (`diagnostics.refuse_rules`).
 */
export type ServerLanguage = "python" | "typescript";

/** How long a server may take and how much memory it may hold. */
export interface ServerLimits {
  /** From spawning to the end of the `initialize` handshake. */
  startMs: number;
  /** For one request: the diagnostics of one text, or the references of one name. */
  requestMs: number;
  /** The V8 heap cap of the server's Node process (the TypeScript server's tsserver gets the same cap). */
  memoryMb: number;
}

/** How a server may be run where bubblewrap does not work. */
export interface ServerContainment {
  /**
   * Whether it may then run uncontained, reading whatever the bot's user can: only where the repository's own commands
   * run uncontained too (the operator trusts its repositories: MAGIS_SANDBOX=none, `--no-sandbox`). Otherwise it does
   * not run.
   */
  allowUncontained: boolean;
}

/** A file of the checkout (its path from the root) with the text a job gives it. */
export interface FileText {
  path: string;
  text: string;
}

/** One language server on one checkout: it reads the checkout, and the texts it checks are handed to it in memory. */
export interface LanguageServer {
  readonly language: ServerLanguage;
  /** What its spec calls it in a sentence: "Pyright", "the TypeScript server". */
  readonly name: string;
  /** The process group's id: stopping the server kills the group. */
  readonly pid: number;
  /** The one folder it may write, its TMPDIR and HOME (named for this process): removed when it stops. */
  readonly temp: string;
  /**
   * The diagnostics of `file` (relative to the checkout) if its text were each of `texts` in turn, one list per text;
   * the files of `alongside` read as the texts given there rather than as the checkout has them.
   */
  diagnose(file: string, texts: readonly string[], alongside?: readonly FileText[]): Promise<Diagnostic[][]>;
  /** Where the name at `position` of `file`, whose text is `text`, is used (its definition left out). */
  references(file: string, text: string, position: Position): Promise<Location[]>;
  /** Asks the server to exit, then kills its process group; never rejects. */
  stop(): Promise<void>;
}

/** A server's process once it has answered `initialize`: its connection, and the bounds every request is held to. */
export interface ServerProcess {
  readonly connection: ProtocolConnection;
  /** The process group's id. */
  readonly pid: number;
  /** Its temp folder (TMPDIR and HOME). */
  readonly temp: string;
  /** Why the process ended (`exited (SIGKILL)`), or null while it runs. */
  ended(): string | null;
  /** `work`, failing early when the server exits, and after `ms` (a request's limit unless given). */
  bounded<T>(work: Promise<T>, what: string, ms?: number): Promise<T>;
  /** Asks the server to exit, then kills its process group and removes its temp folder; never rejects. */
  stop(): Promise<void>;
}

/** One version of a document the session has open, as a diagnostics strategy sees it. */
export interface DocumentVersion {
  /** Its absolute path and its `file:` URI. */
  path: string;
  uri: string;
  version: number;
  /** What the session is doing (`checking a.py`), for the message of a late or dead server. */
  what: string;
}

/** How the diagnostics of an open document are had from one running server. */
export interface DocumentDiagnostics {
  /** Calls `send` (which gives the document `document.version`: its open or a change) and the diagnostics of that version. */
  diagnose(document: DocumentVersion, send: () => Promise<void>): Promise<Diagnostic[]>;
  /** Calls `send` (the document's open) and resolves once the server may be asked of it or of the files it uses. */
  open(document: DocumentVersion, send: () => Promise<void>): Promise<void>;
}

/** A server spec's way to its diagnostics, made once for each server started, on its running process. */
export type DiagnosticsStrategy = (server: ServerProcess) => DocumentDiagnostics;

/**
 * What a job's environment shows the servers: the package folders its setup made, as host folders inside the kept
 * environment (asked of the environment inside the sandbox, never by running its programs here). Each is mounted
 * read-only in the servers' jails, and nothing of the host beyond them: a link inside one that leads out of the
 * environment does not resolve there.
 */
export interface ServerEnvironment {
  /**
   * What the environment is kept under (see environmentKey), when it is a declared one: the untouched files'
   * diagnostics across jobs are then keyed on it and on the folders below relative to the checkout and the roots (each
   * job's copy lies at host folders of its own). Absent: the folders as they are key them.
   */
  key?: string;
  /** The folders everything below must lie in once links are resolved: the set-up copy and its home, on the host. */
  roots: string[];
  /** Python's search paths, in the interpreter's order: Pyright's `extraPaths`, mounted at their own paths. */
  python: string[];
  /**
   * The `node_modules` folders the setup made, each shown to the TypeScript server where the copy had it (`at`, relative
   * to the checkout), so that the checkout's files resolve their imports as Node would.
   */
  nodeModules: Placement[];
}

/** A host folder shown read-only inside the checkout, at `at` (relative to it), in a server's jail. */
export interface Placement {
  from: string;
  at: string;
}
