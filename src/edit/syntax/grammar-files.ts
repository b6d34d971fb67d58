import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";

/** The tree-sitter runtime's own wasm file (web-tree-sitter), which every grammar runs on. */
export const RUNTIME_WASM = "tree-sitter.wasm";

/** The folder of brotli-compressed wasm files (`<name>.br`) beside a bundle: the Action's dist-action/grammars/. */
export const BUNDLED_WASM_DIR = "grammars";

/** The wasm file of one grammar: `tree-sitter-<grammar>.wasm`. */
export function grammarWasm(grammar: string): string {
  return `tree-sitter-${grammar}.wasm`;
}

const load = createRequire(import.meta.url);

/**
 * Grammars read from their own package rather than tree-sitter-wasms: its bash scanner calls `isalpha`,
 * which the web-tree-sitter 0.25 runtime does not provide, so a `case`, a comment or a quoted word threw
 * (and left the parser throwing on every later file); tree-sitter-bash's own build calls what it provides.
 */
const OWN_PACKAGE: Record<string, string> = { [grammarWasm("bash")]: "tree-sitter-bash/tree-sitter-bash.wasm" };

/** Where a wasm file is among the installed packages: the runtime in web-tree-sitter, a grammar in tree-sitter-wasms/out (or its own package). */
export function installedWasm(name: string): string {
  if (name === RUNTIME_WASM) return load.resolve("web-tree-sitter/tree-sitter.wasm");
  const own = OWN_PACKAGE[name];
  return own ? load.resolve(own) : join(dirname(load.resolve("tree-sitter-wasms/package.json")), "out", name);
}

/** The bundled folder when this code runs from a bundle that has one beside it (the Action's), else null. */
const bundled = ((): string | null => {
  const folder = join(dirname(fileURLToPath(import.meta.url)), BUNDLED_WASM_DIR);
  return existsSync(folder) ? folder : null;
})();

/** The bytes of a wasm file: from the bundle's compressed copy where there is a bundle, else from its installed package. */
export function readWasm(name: string): Uint8Array {
  return bundled ? brotliDecompressSync(readFileSync(join(bundled, `${name}.br`))) : readFileSync(installedWasm(name));
}
