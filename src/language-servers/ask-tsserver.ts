import { ExecuteCommandRequest, type Diagnostic } from "vscode-languageserver-protocol/node.js";
import type { DiagnosticsStrategy } from "./types.js";

/**
 * The TypeScript server's diagnostics, asked of its tsserver once a version is sent: tsserver's syntactic and semantic
 * diagnostics of the open file, through the server's `typescript.tsserverRequest` command. What the server publishes
 * comes in parts, without a version, and not at all when nothing changed: it is not awaited, and an open is taken in at
 * once.
 */
export const askTsserver: DiagnosticsStrategy = (server) => ({
  diagnose: async (document, send) => {
    await send();
    const diagnostics: Diagnostic[] = [];
    for (const kind of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
      const answer = (await server.bounded(
        server.connection.sendRequest(ExecuteCommandRequest.type, { command: "typescript.tsserverRequest", arguments: [kind, { file: document.uri }] }),
        document.what,
      )) as { body?: TsDiagnostic[] } | null;
      for (const d of answer?.body ?? []) diagnostics.push(fromTsserver(d));
    }
    return diagnostics;
  },
  open: (_document, send) => send(),
});

/** A diagnostic as tsserver answers it: 1-based lines and offsets, its text and category. */
interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
}

const SEVERITY: Record<string, 1 | 2 | 3 | 4> = { error: 1, warning: 2, suggestion: 4, message: 3 };

/** A tsserver diagnostic as an LSP one: 0-based positions, a severity. */
function fromTsserver(d: TsDiagnostic): Diagnostic {
  return {
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    message: d.text,
    severity: SEVERITY[d.category] ?? 1,
    ...(d.code === undefined ? {} : { code: d.code }),
    source: "typescript",
  };
}
