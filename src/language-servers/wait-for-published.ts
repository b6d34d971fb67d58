import { fileURLToPath } from "node:url";
import { PublishDiagnosticsNotification, type Diagnostic, type PublishDiagnosticsParams } from "vscode-languageserver-protocol/node.js";
import type { DiagnosticsStrategy, DocumentVersion } from "./types.js";

/**
 * The diagnostics a server publishes for each version of a document (Pyright): each is awaited once its version is
 * sent. A document is taken in whole once the diagnostics of its open are published: with a file still being checked,
 * what the server says of another, or of references, may come before its check is whole.
 */
export const waitForPublished: DiagnosticsStrategy = (server) => {
  const waiting = new Map<string, (published: PublishDiagnosticsParams) => void>();
  server.connection.onNotification(PublishDiagnosticsNotification.type, (published) => waiting.get(pathOfUri(published.uri))?.(published));
  const diagnose = async (document: DocumentVersion, send: () => Promise<void>): Promise<Diagnostic[]> => {
    const arrived = new Promise<Diagnostic[]>((resolve) =>
      waiting.set(document.path, (params) => params.version === document.version && resolve(params.diagnostics)),
    );
    try {
      await send();
      return await server.bounded(arrived, document.what);
    } finally {
      waiting.delete(document.path);
    }
  };
  return {
    diagnose,
    open: async (document, send) => {
      await diagnose(document, send);
    },
  };
};

/** The path of a `file:` URI, as the key its diagnostics are awaited under. */
function pathOfUri(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}
