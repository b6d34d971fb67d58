import { createRequire } from "node:module";
import path from "node:path";
import { askTsserver } from "./ask-tsserver.js";
import type { ShownEnvironment } from "./show-environment.js";
import type { DiagnosticsStrategy, Placement, ServerLanguage } from "./types.js";
import { waitForPublished } from "./wait-for-published.js";

/** How one server is run: a Node script of our dependencies, never a program the repository names. */
export interface ServerLaunch {
  /** The Node script and its arguments (run with this process's Node, under a memory cap). */
  script: string;
  args: string[];
  /** The folders of the packages it runs from (its script's, the tsserver it runs): all of ours it may read. */
  packages: string[];
  /** The environment's folders it reads: mounted at their own paths (`reads`), or inside the checkout (`placed`). */
  environment: { reads: string[]; placed: Placement[] };
  initializationOptions: Record<string, unknown>;
  /** What the server is told when it asks for a configuration section (`workspace/configuration`). */
  settings: Record<string, unknown>;
}

/** All that differs from one language server to another: a new server is one more spec in SERVERS. */
export interface ServerSpec {
  /** Its name in a sentence: "your change adds errors that Pyright reports". */
  name: string;
  /** The file extensions it checks, each with the LSP language id of such a document. */
  extensions: Record<string, string>;
  /**
   * How a text's diagnostics are had: waitForPublished, as the server sends them for each version of the document
   * (Pyright); askTsserver, from tsserver's synchronous requests (the TypeScript server sends them in parts, without a
   * version, and not at all when none changed).
   */
  diagnostics: DiagnosticsStrategy;
  /**
   * Whether the first text a check sends must be opened and then changed to itself: Pyright keeps the types it inferred
   * across a document's open (only a change discards them), so that a text opened after a check of the file's text on
   * disk would be judged against the file's old definitions (a call of a method whose parameters the text changed,
   * reached through another module, reported as a wrong call).
   */
  changeAfterOpen: boolean;
  /**
   * How it is run on the checkout `root`, its memory capped at `memoryMb`, seeing the environment's folders `shown`;
   * throws when its package is not installed.
   */
  launch(root: string, memoryMb: number, shown: ShownEnvironment): ServerLaunch;
  /**
   * The files of the checkout (from its root) whose texts configure the server for `file`: with the server and the
   * environment, they key what it said of an untouched text across jobs (see untouchedKey).
   */
  configFiles(file: string): string[];
}

/**
 * Where Pyright looks for an interpreter to ask for its search paths: nowhere that exists. Pyright runs the interpreter
 * it is given (or `python3` from PATH) to read site-packages, and with a repository's `.pth` files or modules named like
 * the standard library's, that interpreter would run the repository's code. Given a path that does not exist (and an
 * empty PATH, see spawnServer), it runs nothing and resolves the standard library from its own bundled stubs.
 */
export const NO_INTERPRETER = "/nonexistent/magis-language-server-has-no-python";

const require = createRequire(import.meta.url);

/** The folder of one of our packages. */
function packageOf(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

const SERVERS: Record<ServerLanguage, ServerSpec> = {
  python: {
    name: "Pyright",
    extensions: { ".py": "python", ".pyi": "python" },
    diagnostics: waitForPublished,
    changeAfterOpen: true,
    // The environment's search paths are `extraPaths`, read as the interpreter would read its site-packages: Pyright
    // is never given the environment's interpreter (see NO_INTERPRETER). The checkout's own folders among them are
    // mounted with the checkout already.
    launch: (root, _memoryMb, shown) => ({
      script: require.resolve("pyright/langserver.index.js"),
      args: ["--stdio"],
      packages: [packageOf("pyright")],
      environment: { reads: shown.python.filter((dir) => dir !== root && !dir.startsWith(`${root}/`)), placed: [] },
      initializationOptions: {},
      settings: {
        python: {
          pythonPath: NO_INTERPRETER,
          analysis: { diagnosticMode: "openFilesOnly", autoSearchPaths: true, useLibraryCodeForTypes: true, extraPaths: shown.python },
        },
      },
    }),
    // Pyright reads its settings from the workspace root's files alone.
    configFiles: () => ["pyrightconfig.json", "pyproject.toml"],
  },
  typescript: {
    name: "the TypeScript server",
    extensions: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    diagnostics: askTsserver,
    changeAfterOpen: false,
    // The environment's node_modules are shown where the copy had them: tsserver resolves a package as Node does, from
    // the importing file's folder up, and honours no search path given from outside the repository's tsconfig.
    launch: (_root, memoryMb, shown) => {
      // Our own tsserver, named by path: the TypeScript server would otherwise prefer the repository's
      // node_modules/typescript. Automatic type acquisition is off: it runs npm.
      const tsserver = path.join(path.dirname(require.resolve("typescript")), "tsserver.js");
      return {
        script: require.resolve("typescript-language-server/lib/cli.mjs"),
        args: ["--stdio"],
        packages: [packageOf("typescript-language-server"), packageOf("typescript")],
        environment: { reads: [], placed: shown.nodeModules },
        initializationOptions: { tsserver: { path: tsserver, useSyntaxServer: "never" }, disableAutomaticTypingAcquisition: true, maxTsServerMemory: memoryMb },
        settings: {},
      };
    },
    // tsserver takes the nearest tsconfig.json or jsconfig.json above the file (what they extend is not followed: an
    // `extends` outside them changes no key); package.json says how imports resolve.
    configFiles: (file) => {
      const names = ["package.json"];
      for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
        for (const name of ["tsconfig.json", "jsconfig.json"]) names.push(dir === "." ? name : `${dir}/${name}`);
        if (dir === "." || dir === "/") break;
      }
      return names;
    },
  },
};

const EXTENSIONS = new Map(
  Object.entries(SERVERS).flatMap(([language, spec]) =>
    Object.entries(spec.extensions).map(([extension, id]) => [extension, { language: language as ServerLanguage, id }]),
  ),
);

/** The server language of a file and its LSP language id, or null for a file no server checks. */
export function languageOf(file: string): { language: ServerLanguage; id: string } | null {
  return EXTENSIONS.get(path.extname(file).toLowerCase()) ?? null;
}

/** The spec of the server of `language`. */
export function serverSpec(language: ServerLanguage): ServerSpec {
  return SERVERS[language];
}
