import fs from "node:fs";
import path from "node:path";
import type { ServerEnvironment } from "./types.js";

/** One folder of packages and what it holds. */
export interface InstalledFolder {
  /** `python` for a search path, `node` for a node_modules folder. */
  kind: "python" | "node";
  /** The host folder (written relative to the checkout and the roots by portableFolders when it keys anything). */
  folder: string;
  /** Its entries, sorted (Python), or its packages as `name@version` (Node). */
  entries: string[];
}

const described = new WeakMap<ServerEnvironment, InstalledFolder[]>();

/**
 * What is installed in the folders `environment` shows the servers, as names and versions: each of Python's search
 * paths listed (a distribution's `*.dist-info` or `*.egg-info` folder carries its version in its name), and each
 * `node_modules` folder's packages with the version their package.json gives. One kept environment's key can stand
 * for other packages than the ones an untouched file was checked against: unpinned dependencies resolved anew by a
 * rebuild after eviction, or a maintenance step that upgrades. This tells them apart, so that remembered diagnostics
 * are never compared against another set of packages. The folders are read, never run; read once per environment.
 */
export function describeInstalled(environment: ServerEnvironment): InstalledFolder[] {
  let folders = described.get(environment);
  if (folders === undefined) {
    folders = [
      ...environment.python.map((folder) => ({ kind: "python" as const, folder, entries: listing(folder) })),
      ...environment.nodeModules.map(({ from }) => ({ kind: "node" as const, folder: from, entries: nodePackages(from) })),
    ];
    described.set(environment, folders);
  }
  return folders;
}

/** A folder's entries, sorted; `(unreadable: CODE)` for one that cannot be listed (gone, not a folder). */
function listing(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch (error) {
    return [`(unreadable: ${(error as NodeJS.ErrnoException).code ?? "error"})`];
  }
}

/** The packages of a node_modules folder as `name@version`, scoped ones (`@scope/name`) included. */
function nodePackages(dir: string): string[] {
  const names = listing(dir).flatMap((name) =>
    name.startsWith("@") ? listing(path.join(dir, name)).map((inner) => `${name}/${inner}`) : name.startsWith(".") ? [] : [name],
  );
  return names.map((name) => `${name}@${versionOf(path.join(dir, name, "package.json"))}`);
}

/** The version a package's `package.json` gives, or "?" when it gives none or cannot be read. */
export function versionOf(manifest: string): string {
  try {
    const version: unknown = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : "?";
  } catch {
    return "?";
  }
}
