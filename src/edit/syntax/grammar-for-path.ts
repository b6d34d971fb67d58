import { extname, basename } from "node:path";

/**
 * File extension → grammar in tree-sitter-wasms/out (tree-sitter-<name>.wasm; bash from tree-sitter-bash, see
 * grammar-files.ts). Only grammars that load with
 * web-tree-sitter 0.25.10 and parse ordinary code of their language without errors are listed
 * (checked in test/unit/edit/syntax-grammars.test.ts); yaml, elm and ql fail to load, and lua
 * loads but misparses plain code, so they are left out.
 */
const GRAMMARS: Record<string, string> = {
  ".py": "python",
  ".pyi": "python",
  ".pyw": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".go": "go",
  ".java": "java",
  ".rs": "rust",
  ".c": "c",
  // C++'s grammar also reads C headers; the C grammar would misread every C++ header.
  ".h": "cpp",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".hxx": "cpp",
  ".rb": "ruby",
  ".rake": "ruby",
  ".gemspec": "ruby",
  ".php": "php",
  ".cs": "c_sharp",
  ".sh": "bash",
  ".bash": "bash",
  ".json": "json",
  ".css": "css",
  ".html": "html",
  ".htm": "html",
  ".kt": "kotlin",
  ".kts": "kotlin",
  ".scala": "scala",
  ".sc": "scala",
  ".swift": "swift",
  ".dart": "dart",
  ".ex": "elixir",
  ".exs": "elixir",
  ".ml": "ocaml",
  ".toml": "toml",
  ".zig": "zig",
  ".sol": "solidity",
  ".vue": "vue",
  ".el": "elisp",
  ".res": "rescript",
  ".erb": "embedded_template",
  ".ejs": "embedded_template",
};

const BY_NAME: Record<string, string> = { Rakefile: "ruby", Gemfile: "ruby" };

/** The tree-sitter grammar name for a path, or null when none is shipped (such files are never blocked). */
export function grammarForPath(path: string): string | null {
  return BY_NAME[basename(path)] ?? GRAMMARS[extname(path).toLowerCase()] ?? null;
}

/** Every grammar a path can map to, sorted: the ones the Action's bundle ships (scripts/build-action.ts). */
export function mappedGrammars(): string[] {
  return [...new Set([...Object.values(GRAMMARS), ...Object.values(BY_NAME)])].sort();
}
