import path from "node:path";

/** The repository's files by the names code imports them by: Python modules, and script files by path. */
export interface ModuleIndex {
  /** Python: `pkg.sub.mod` (and `sub.mod`, for a package under `src/` or a folder of its own) to files. */
  modules: Map<string, string[]>;
  /** Every file's path, for relative imports (Python's, and those of JavaScript and TypeScript). */
  paths: Set<string>;
}

const SCRIPT = /\.(m?[jt]sx?|c[jt]s)$/;
const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];
// `import x from "./x"`, `export { y } from "../y"`, `import "./z"`, `require("./w")`, `import("./v")`.
// A file is up to max_file_bytes of anyone's text: each pattern here must stay linear in its length
// (`\s*\(?\s*` rescanned a run of spaces from each of its characters).
const SCRIPT_IMPORT = /(?:\bfrom\s*|\bimport\s*(?:\(\s*)?|\brequire\s*\(\s*)["'](\.{1,2}\/[^"'\n]*)["']/g;
const PYTHON_NAME = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*$/;
// `from ..a.b import c`: the leading dots, then dotted words (`\.*[\w.]*` split a run of dots every way).
const PYTHON_FROM = /^from\s+(\.*(?:\w+(?:\.\w+)*)?)\s+import\s+(.*)$/;

/** Indexes the files by module name; build once per repository. */
export function indexModules(paths: string[]): ModuleIndex {
  const modules = new Map<string, string[]>();
  for (const file of paths) {
    if (!file.endsWith(".py")) continue;
    const parts = file.slice(0, -3).split("/");
    if (parts[parts.length - 1] === "__init__") parts.pop();
    // A module is imported by its full dotted path, or without its first folder (`src/`, a project folder).
    for (const name of [parts.join("."), parts.slice(1).join(".")]) {
      if (name === "") continue;
      const files = modules.get(name);
      if (!files) modules.set(name, [file]);
      else if (!files.includes(file)) files.push(file);
    }
  }
  return { modules, paths: new Set(paths) };
}

/** The statements `import a.b as c, d` and `from .x import (y, z)` of a Python file, as [module, names] pairs. */
function pythonImports(text: string): Array<[module: string, names: string[]]> {
  const found: Array<[string, string[]]> = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith("import ")) {
      for (const part of line.slice(7).split("#")[0]!.split(",")) {
        const name = part.trim().split(/\s+/)[0] ?? "";
        if (PYTHON_NAME.test(name)) found.push([name, []]);
      }
      continue;
    }
    const from = PYTHON_FROM.exec(line);
    if (!from) continue;
    // A parenthesized list runs on to its closing parenthesis; a backslash continues the line. Only the
    // line just read is looked at: a list never closed runs to the end of the file, read once.
    const parts = [from[2]!.split("#")[0]!];
    if (parts[0]!.trimStart().startsWith("(")) {
      while (!parts[parts.length - 1]!.includes(")") && i + 1 < lines.length) parts.push(lines[++i]!.split("#")[0]!);
    } else {
      while (parts[parts.length - 1]!.trimEnd().endsWith("\\") && i + 1 < lines.length) {
        parts[parts.length - 1] = parts[parts.length - 1]!.trimEnd().slice(0, -1);
        parts.push(lines[++i]!.split("#")[0]!);
      }
    }
    const names = parts
      .join(" ")
      .replace(/[()]/g, " ")
      .split(",")
      .map((part) => part.trim().split(/\s+/)[0] ?? "")
      .filter((name) => /^\w+$/.test(name));
    found.push([from[1]!, names]);
  }
  return found;
}

/** The file of module `parts` from the repository's root: `a/b.py` or the package `a/b/__init__.py`. */
function moduleFiles(parts: string[], paths: Set<string>): string[] {
  if (parts.length === 0) return [];
  const stem = parts.join("/");
  return [`${stem}.py`, `${stem}/__init__.py`].filter((candidate) => paths.has(candidate));
}

/**
 * The files of `from module import names` (or `import module`), with the names that are modules of it.
 * An absolute module is looked up by its dotted name (with or without its first folder); a relative
 * one (`..utils`) only where it is, from the importing file's package, as Python looks it up: not
 * by a name that only looks alike elsewhere (`tests/utils.py`), and not past the repository's root.
 */
function pythonFiles(module: string, names: string[], file: string, index: ModuleIndex): string[] {
  const dots = /^\.*/.exec(module)![0].length;
  if (dots === 0) return [module, ...names.map((name) => `${module}.${name}`)].flatMap((name) => index.modules.get(name) ?? []);
  const folders = file.split("/").slice(0, -1);
  if (dots - 1 > folders.length) return [];
  const rest = module.slice(dots);
  const parts = [...folders.slice(0, folders.length - (dots - 1)), ...(rest ? rest.split(".") : [])];
  return [parts, ...names.map((name) => [...parts, name])].flatMap((candidate) => moduleFiles(candidate, index.paths));
}

/** The file a relative script import names, trying the extensions and index files a bundler would. */
function resolveScript(specifier: string, file: string, paths: Set<string>): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  // TypeScript imports `./x.js` meaning `./x.ts`.
  const stem = target.replace(/\.(m?js|cjs|jsx)$/, "");
  const tries = [target, ...SCRIPT_EXTENSIONS.map((ext) => stem + ext), ...SCRIPT_EXTENSIONS.map((ext) => `${target}/index${ext}`)];
  return tries.find((candidate) => paths.has(candidate));
}

/**
 * The repository files a file imports: Python's absolute and relative imports (a name imported from a
 * package may be a module of it), and the relative imports and requires of JavaScript and TypeScript.
 * Imports of other packages, and files of other languages, give nothing.
 */
export function importedFiles(file: string, text: string, index: ModuleIndex): Set<string> {
  const imported = new Set<string>();
  const add = (files: string[] | undefined) => {
    for (const found of files ?? []) if (found !== file) imported.add(found);
  };
  if (file.endsWith(".py")) {
    for (const [module, names] of pythonImports(text)) add(pythonFiles(module, names, file, index));
  } else if (SCRIPT.test(file)) {
    for (const match of text.matchAll(SCRIPT_IMPORT)) {
      const found = resolveScript(match[1]!, file, index.paths);
      if (found) add([found]);
    }
  }
  return imported;
}
