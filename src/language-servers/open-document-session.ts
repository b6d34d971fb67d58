import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ReferencesRequest,
  type Diagnostic,
} from "vscode-languageserver-protocol/node.js";
import { LanguageServerError, LateReferencesError } from "./errors.js";
import { languageOf, type ServerSpec } from "./server-specs.js";
import type { DocumentVersion, LanguageServer, ServerLanguage, ServerProcess } from "./types.js";

/**
 * The documents of a job on the started `server` of `language` on the checkout `root`: each text it checks is opened
 * in memory, its diagnostics had as `spec.diagnostics` says, and it is closed again after its turn.
 */
export function openDocumentSession(root: string, language: ServerLanguage, spec: ServerSpec, server: ServerProcess): LanguageServer {
  const { connection } = server;
  const diagnostics = spec.diagnostics(server);
  const uriOf = (file: string) => pathToFileURL(path.join(root, file)).href;
  const documentOf = (file: string, version: number, what: string): DocumentVersion => ({ path: path.join(root, file), uri: uriOf(file), version, what });
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
  const change = (file: string, version: number, text: string) =>
    connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: uriOf(file), version }, contentChanges: [{ text }] });
  const close = (file: string) => connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: uriOf(file) } }).catch(() => {});
  /** Opens `file` with `text` as version 1, and with `changed`, changes it to the same text as version 2. */
  const openFirst = async (file: string, text: string, changed: boolean) => {
    await open(file, 1, text);
    if (changed) await change(file, 2, text);
  };
  /** Opens `file` with `text`, and waits until the server has taken it in (see DocumentDiagnostics.open). */
  const openWhole = (file: string, text: string, what: string) => diagnostics.open(documentOf(file, 1, what), () => open(file, 1, text));

  return {
    language,
    name: spec.name,
    pid: server.pid,
    temp: server.temp,
    diagnose: (file, texts, alongside = []) =>
      inTurn(async () => {
        const what = `checking ${file}`;
        const results: Diagnostic[][] = [];
        const others = alongside.filter((other) => other.path !== file);
        try {
          // The other files are taken in first: with them still being checked, what a server says of `file` may come
          // before its own check is whole.
          for (const other of others) await openWhole(other.path, other.text, what);
          // Each text is a new version of the one open document; the first is opened, and with a spec that asks it,
          // changed to itself once opened (see ServerSpec.changeAfterOpen).
          const first = spec.changeAfterOpen ? 2 : 1;
          for (const [index, text] of texts.entries()) {
            const version = index + first;
            const send = index > 0 ? () => change(file, version, text) : () => openFirst(file, text, spec.changeAfterOpen);
            results.push(await diagnostics.diagnose(documentOf(file, version, what), send));
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
        // Pyright answers references before it has read the workspace: it is asked once it has taken the file in.
        await openWhole(file, text, what);
        // A search of a large workspace may outlast its bound: it is then cancelled, and the server stays of use.
        const cancel = new CancellationTokenSource();
        try {
          const params = { textDocument: { uri: uriOf(file) }, position, context: { includeDeclaration: false } };
          const found = await server.bounded(connection.sendRequest(ReferencesRequest.type, params, cancel.token), what);
          return found ?? [];
        } catch (error) {
          if (!server.ended() && error instanceof LanguageServerError) throw new LateReferencesError(error.message);
          throw error;
        } finally {
          cancel.cancel();
          cancel.dispose();
          await close(file);
        }
      }),
    stop: () => server.stop(),
  };
}
