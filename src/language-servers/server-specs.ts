import { createRequire } from "node:module";
import path from "node:path";

/** The languages a server checks: Python with Pyright, JavaScript and TypeScript with the TypeScript server. */
export type ServerLanguage = "python" | "typescript";

const EXTENSIONS: Record<string, { language: ServerLanguage; id: string }> = {
  ".py": { language: "python", id: "python" },
  ".pyi": { language: "python", id: "python" },
  ".ts": { language: "typescript", id: "typescript" },
  ".mts": { language: "typescript", id: "typescript" },
  ".cts": { language: "typescript", id: "typescript" },
  ".tsx": { language: "typescript", id: "typescriptreact" },
  ".js": { language: "typescript", id: "javascript" },
  ".mjs": { language: "typescript", id: "javascript" },
  ".cjs": { language: "typescript", id: "javascript" },
  ".jsx": { language: "typescript", id: "javascriptreact" },
};

/** The server language of a file and its LSP language id, or null for a file no server checks. */
export function languageOf(file: string): { language: ServerLanguage; id: string } | null {
  return EXTENSIONS[path.extname(file).toLowerCase()] ?? null;
}

/** How one server is started and configured: a Node script of our dependencies, never a program the repository names. */
export interface ServerSpec {
  language: ServerLanguage;
  /** The Node script and its arguments (run with this process's Node, under a memory cap). */
  script: string;
  args: string[];
  /** The folders of the packages it runs from (its script's, the tsserver it runs): all of ours it may read. */
  packages: string[];
  initializationOptions: Record<string, unknown>;
  /** What the server is told when it asks for a configuration section (`workspace/configuration`). */
  settings: Record<string, unknown>;
  /**
   * How a text's diagnostics are had: `published`, as the server sends them for each version of the document (Pyright);
   * `asked`, from tsserver's synchronous requests through the server's `typescript.tsserverRequest` command (the
   * TypeScript server sends them in parts, without a version, and not at all when none changed).
   */
  diagnostics: "published" | "asked";
}

/**
 * Where Pyright looks for an interpreter to ask for its search paths: nowhere that exists. Pyright runs the interpreter
 * it is given (or `python3` from PATH) to read site-packages, and with a repository's `.pth` files or modules named like
 * the standard library's, that interpreter would run the repository's code. Given a path that does not exist (and an
 * empty PATH, see startLanguageServer), it runs nothing and resolves the standard library from its own bundled stubs.
 */
export const NO_INTERPRETER = "/nonexistent/magis-language-server-has-no-python";

const require = createRequire(import.meta.url);

/** The folder of one of our packages. */
function packageOf(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/** The spec of the server of `language`, whose memory is capped at `memoryMb`. */
export function serverSpec(language: ServerLanguage, memoryMb: number): ServerSpec {
  if (language === "python") {
    return {
      language,
      script: require.resolve("pyright/langserver.index.js"),
      args: ["--stdio"],
      packages: [packageOf("pyright")],
      initializationOptions: {},
      settings: {
        python: { pythonPath: NO_INTERPRETER, analysis: { diagnosticMode: "openFilesOnly", autoSearchPaths: true, useLibraryCodeForTypes: true } },
      },
      diagnostics: "published",
    };
  }
  // Our own tsserver, named by path: the TypeScript server would otherwise prefer the repository's node_modules/typescript.
  // Automatic type acquisition is off: it runs npm.
  const tsserver = path.join(path.dirname(require.resolve("typescript")), "tsserver.js");
  return {
    language,
    script: require.resolve("typescript-language-server/lib/cli.mjs"),
    args: ["--stdio"],
    packages: [packageOf("typescript-language-server"), packageOf("typescript")],
    initializationOptions: { tsserver: { path: tsserver, useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true, maxTsServerMemory: memoryMb },
    settings: {},
    diagnostics: "asked",
  };
}
