import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ReferencesRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type Location,
  type Position,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node.js";
import { checkoutPrefix, THIS_PROCESS } from "../git/checkout-name.js";
import { withinTime } from "../lib/within-time.js";
import { confinedArgv, findConfinement } from "./confine-server.js";
import { languageOf, serverSpec, type ServerLanguage } from "./server-specs.js";

/** How long a server may take and how much memory it may hold. */
export interface ServerLimits {
  /** From spawning to the end of the `initialize` handshake. */
  startMs: number;
  /** For one request: the diagnostics of one text, or the references of one name. */
  requestMs: number;
  /** The V8 heap cap of the server's Node process (the TypeScript server's tsserver gets the same cap). */
  memoryMb: number;
}

/** A file of the checkout (its path from the root) with the text a job gives it. */
export interface FileText {
  path: string;
  text: string;
}

/** One language server on one checkout: it reads the checkout, and the texts it checks are handed to it in memory. */
export interface LanguageServer {
  readonly language: ServerLanguage;
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

/** The server of a language failed to start, stopped, or did not answer in time; the message says which. */
export class LanguageServerError extends Error {}

/** A search for references did not end in time; it was cancelled, and the server still serves. */
export class LateReferencesError extends LanguageServerError {}

// How long `shutdown` may take before the group is killed anyway.
const SHUTDOWN_MS = 1_000;

/** How a server may be run where bubblewrap does not work. */
export interface ServerContainment {
  /**
   * Whether it may then run uncontained, reading whatever the bot's user can: only where the repository's own commands
   * run uncontained too (the operator trusts its repositories: MAGIS_SANDBOX=none, `--no-sandbox`). Otherwise it does
   * not run.
   */
  allowUncontained: boolean;
}

/**
 * Starts the language server of `language` on the checkout `root`, in a process group of its own with an empty
 * environment (no PATH, no credentials; TMPDIR and HOME a folder of its own), under `limits`, in a bubblewrap jail that
 * shows it the checkout and our own packages alone (see confinedArgv): a repository's config (`extraPaths`, `paths`),
 * imports (`from ....x`, `/abs/path`) and links cannot make it read a host file into what it reports. It never runs a
 * program the repository chooses: see serverSpec. Rejects with a LanguageServerError when it cannot be started or does
 * not start in time (the group is killed then).
 */
export async function startLanguageServer(
  root: string,
  language: ServerLanguage,
  limits: ServerLimits,
  containment: ServerContainment = { allowUncontained: false },
): Promise<LanguageServer> {
  let spec;
  try {
    spec = serverSpec(language, limits.memoryMb);
  } catch (error) {
    throw new LanguageServerError(`the ${language} language server is not installed (${String(error)}); reinstall dependencies with \`npm ci\``);
  }
  const confinement = await findConfinement();
  if ("why" in confinement && !containment.allowUncontained)
    throw new LanguageServerError(
      `the ${language} language server runs only in bubblewrap, and ${confinement.why}; allow it there, or run the repositories' commands uncontained (MAGIS_SANDBOX=none, for repositories you trust) to run the servers uncontained too`,
    );
  // A temp folder of its own, named for this process (the leftover sweep removes it once the process is gone), and removed
  // with the server: tsserver leaves its cancellation pipes' folders in the temp folder.
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), checkoutPrefix(THIS_PROCESS, "language-server")));
  const env = { PATH: "", TMPDIR: temp, HOME: temp };
  const command = [process.execPath, `--max-old-space-size=${limits.memoryMb}`, spec.script, ...spec.args];
  const jailed = "program" in confinement;
  let argv: string[];
  try {
    argv = jailed ? confinedArgv(confinement.program, command, { reads: [root, ...spec.packages], temp }, env) : command;
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw new LanguageServerError(`the ${language} language server could not be started: ${error instanceof Error ? error.message : String(error)}`);
  }
  const child = spawn(argv[0]!, argv.slice(1), { cwd: temp, env: jailed ? {} : env, detached: true, stdio: ["pipe", "pipe", "ignore"] });
  const pid = child.pid;
  /** Kills the process group and removes its temp folder. */
  const killGroup = () => {
    try {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
    fs.rmSync(temp, { recursive: true, force: true });
  };
  let exited: string | null = null;
  const failures = new Set<(why: string) => void>();
  const fail = (why: string) => {
    exited ??= why;
    for (const reject of failures) reject(exited);
  };
  child.on("error", (error) => fail(`could not start: ${error.message}`));
  child.on("exit", (code, signal) => fail(`exited (${signal ?? `status ${code}`})`));
  if (pid === undefined) {
    killGroup();
    throw new LanguageServerError(`the ${language} language server could not be started`);
  }

  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  // A write after the server died must not take this process down.
  child.stdin!.on("error", () => {});
  connection.onError(() => {});
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => (item.section ? lookUp(spec.settings, item.section) : spec.settings)));
  const waiting = new Map<string, (published: PublishDiagnosticsParams) => void>();
  connection.onNotification(PublishDiagnosticsNotification.type, (published) => waiting.get(pathOfUri(published.uri))?.(published));
  connection.listen();

  /** Runs `work`, failing early when the server exits, and after `ms`. */
  const bounded = async <T>(work: Promise<T>, what: string, ms = limits.requestMs): Promise<T> => {
    let onExit!: (why: string) => void;
    const died = new Promise<never>((_, reject) => (onExit = (why) => reject(new LanguageServerError(`the ${language} language server ${why} while ${what}`))));
    failures.add(onExit);
    try {
      if (exited) onExit(exited);
      return await withinTime(
        Promise.race([work, died]),
        ms,
        () => new LanguageServerError(`the ${language} language server did not finish ${what} within ${ms} ms`),
      );
    } finally {
      failures.delete(onExit);
    }
  };

  const rootUri = pathToFileURL(root).href;
  try {
    await bounded(
      connection.sendRequest(InitializeRequest.type, {
        // A server exits once the process named here is gone. In the jail our pid names no process (it has a PID
        // namespace of its own), and the jail dies with us anyway; outside it, this is what stops a killed bot's servers.
        processId: jailed ? null : process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
        capabilities: { workspace: { configuration: true }, textDocument: { publishDiagnostics: { versionSupport: true } } },
        initializationOptions: spec.initializationOptions,
      }),
      "starting",
      limits.startMs,
    );
    await connection.sendNotification(InitializedNotification.type, {});
  } catch (error) {
    connection.dispose();
    killGroup();
    throw error;
  }

  const uriOf = (file: string) => pathToFileURL(path.join(root, file)).href;
  // One document at a time: a server is one thread anyway, and each document is closed again after its turn, so that no
  // text of an attempt stays open to change what the server says of another file.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const turn = queue.then(work, work);
    queue = turn.catch(() => {});
    return turn;
  };
  const open = (file: string, version: number, text: string) =>
    connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: uriOf(file), languageId: languageOf(file)?.id ?? language, version, text },
    });
  const close = (file: string) => connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: uriOf(file) } }).catch(() => {});
  /** The diagnostics the server publishes for `key` and `version` once `send` has been called. */
  const published = async (key: string, version: number, send: () => Promise<void>, what: string): Promise<Diagnostic[]> => {
    const arrived = new Promise<Diagnostic[]>((resolve) => waiting.set(key, (params) => params.version === version && resolve(params.diagnostics)));
    try {
      await send();
      return await bounded(arrived, what);
    } finally {
      waiting.delete(key);
    }
  };
  /** Opens `file` with `text`; with Pyright, once it has published the file's diagnostics, when its check is whole. */
  const openChecked = async (file: string, text: string, what: string): Promise<void> => {
    if (spec.diagnostics === "published") await published(path.join(root, file), 1, () => open(file, 1, text), what);
    else await open(file, 1, text);
  };
  /** tsserver's syntactic and semantic diagnostics of the open `file`, as LSP diagnostics. */
  const asked = async (file: string, what: string): Promise<Diagnostic[]> => {
    const diagnostics: Diagnostic[] = [];
    for (const kind of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
      const answer = (await bounded(
        connection.sendRequest(ExecuteCommandRequest.type, { command: "typescript.tsserverRequest", arguments: [kind, { file: uriOf(file) }] }),
        what,
      )) as { body?: TsDiagnostic[] } | null;
      for (const d of answer?.body ?? []) diagnostics.push(fromTsserver(d));
    }
    return diagnostics;
  };

  return {
    language,
    pid,
    temp,
    diagnose: (file, texts, alongside = []) =>
      inTurn(async () => {
        const key = path.join(root, file);
        const what = `checking ${file}`;
        const results: Diagnostic[][] = [];
        const others = alongside.filter((other) => other.path !== file);
        try {
          // Pyright is given the other files' diagnostics' time first: with them still being checked, what it publishes of
          // `file` may come before its own check is whole.
          for (const other of others) await openChecked(other.path, other.text, what);
          // Each text is a new version of the one open document.
          for (const [index, text] of texts.entries()) {
            const version = index + 1;
            const send =
              index === 0
                ? () => open(file, version, text)
                : () =>
                    connection.sendNotification(DidChangeTextDocumentNotification.type, {
                      textDocument: { uri: uriOf(file), version },
                      contentChanges: [{ text }],
                    });
            if (spec.diagnostics === "published") results.push(await published(key, version, send, what));
            else {
              await send();
              results.push(await asked(file, what));
            }
          }
        } finally {
          await close(file);
          for (const other of others) await close(other.path);
        }
        return results;
      }),
    references: (file, text, position) =>
      inTurn(async () => {
        const what = `finding references in ${file}`;
        // Pyright answers references before it has read the workspace: it is asked once it has checked the file.
        await openChecked(file, text, what);
        // A search of a large workspace may outlast its bound: it is then cancelled, and the server stays of use.
        const cancel = new CancellationTokenSource();
        try {
          const params = { textDocument: { uri: uriOf(file) }, position, context: { includeDeclaration: false } };
          const found = await bounded(connection.sendRequest(ReferencesRequest.type, params, cancel.token), what);
          return found ?? [];
        } catch (error) {
          if (!exited && error instanceof LanguageServerError) throw new LateReferencesError(error.message);
          throw error;
        } finally {
          cancel.cancel();
          cancel.dispose();
          await close(file);
        }
      }),
    stop: async () => {
      if (!exited) {
        try {
          await withinTime(connection.sendRequest(ShutdownRequest.type), SHUTDOWN_MS, () => new Error("late"));
          await connection.sendNotification(ExitNotification.type);
        } catch {
          // It is killed below either way.
        }
      }
      connection.dispose();
      killGroup();
    },
  };
}

/** The path of a `file:` URI, as the key its diagnostics are awaited under. */
function pathOfUri(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** The value at a dotted section (`python.analysis`) of the settings, or null. */
function lookUp(settings: Record<string, unknown>, section: string): unknown {
  let value: unknown = settings;
  for (const part of section.split(".")) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  return value ?? null;
}

/** A diagnostic as tsserver answers it: 1-based lines and offsets, its text and category. */
interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
}

const SEVERITY: Record<string, 1 | 2 | 3 | 4> = { error: 1, warning: 2, suggestion: 4, message: 3 };

function fromTsserver(d: TsDiagnostic): Diagnostic {
  return {
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    message: d.text,
    severity: SEVERITY[d.category] ?? 1,
    ...(d.code === undefined ? {} : { code: d.code }),
    source: "typescript",
  };
}
