import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { gitBlobId } from "../git/git-object-id.js";
import type { TermCache as StoreTermCache } from "../store/store.js";
import { portableFolders } from "./portable-folders.js";
import { serverSpec } from "./server-specs.js";
import { showEnvironment } from "./show-environment.js";
import { versionOf, type InstalledFolder } from "./describe-installed.js";
import type { FileText, ServerEnvironment, ServerLanguage } from "./types.js";

/** What of the store's index cache the diagnostics use: its keyed, bounded JSON entries. */
export type TermCache = Pick<StoreTermCache, "readTerms" | "writeTerms">;

/**
 * Where the untouched texts' diagnostics outlive a job: the store's index cache (bounded, least recently used
 * evicted), under keys of their own, and the checkout's state (see nameWorkspace), resolved once; null leaves the
 * check to the job's own memory alone.
 */
export interface UntouchedStore {
  cache: TermCache;
  workspace: Promise<string | null>;
}

/** All an untouched file's diagnostics depend on besides Pyright's or tsserver's code: what keys them across jobs. */
export interface UntouchedKeyParts {
  /** The server as it runs: its spec's name, its packages' versions, its settings (see serverIdentity). */
  server: string;
  /** The texts of the repository's files that configure the server (see ServerSpec.configFiles), "" for one absent. */
  config: readonly string[];
  /** What the server is shown of the job's environment, its folders as portableFolders writes them. */
  environment: ServerEnvironment;
  /** What is installed in those folders (see describeInstalled), its folders written as above. */
  installed: readonly InstalledFolder[];
  /** The checkout's commit with a clean work tree (see nameWorkspace): what the file's imports read. */
  workspace: string;
  file: string;
  before: string;
  /** The job's other changes, read as given. */
  alongside: readonly FileText[];
}

/** The cache key of an untouched file's diagnostics: `diagnostics:` and a digest of every part, the blob's id among them. */
export function untouchedKey(parts: UntouchedKeyParts): string {
  const hash = createHash("sha256");
  const add = (value: string) => hash.update(`${value.length}:${value}`);
  add(parts.server);
  for (const text of parts.config) add(text);
  add(JSON.stringify(parts.environment));
  add(JSON.stringify(parts.installed));
  add(parts.workspace);
  add(parts.file);
  add(gitBlobId(Buffer.from(parts.before, "utf8")));
  for (const other of parts.alongside) {
    add(other.path);
    add(gitBlobId(Buffer.from(other.text, "utf8")));
  }
  return `diagnostics:${hash.digest("hex")}`;
}

/**
 * The server of `language` as it would run on `root` seeing `environment`: its name, the versions of the packages it
 * runs from, and the settings and options it is given; null when it is not installed (nothing is remembered then).
 */
export function serverIdentity(language: ServerLanguage, root: string, memoryMb: number, environment: ServerEnvironment): string | null {
  const spec = serverSpec(language);
  try {
    const launch = spec.launch(root, memoryMb, showEnvironment(root, environment));
    const versions = launch.packages.map((dir) => versionOf(path.join(dir, "package.json")));
    // A version that cannot be read cannot tell two servers apart: nothing is remembered for it.
    if (versions.includes("?")) return null;
    // The settings name the environment's folders (Pyright's extraPaths): as the environment's own part of the key does.
    return JSON.stringify(portableFolders([spec.name, versions, launch.settings, launch.initializationOptions], root, environment));
  } catch {
    return null;
  }
}

/** The texts of the files that configure the server of `language` for `file` in the checkout `root` ("" where absent). */
export function configTexts(language: ServerLanguage, root: string, file: string): string[] {
  return serverSpec(language)
    .configFiles(file)
    .map((name) => {
      try {
        return fs.readFileSync(path.join(root, name), "utf8");
      } catch {
        return "";
      }
    });
}

const ERROR = 1;

/** The remembered error-level diagnostics of a key, or undefined: a store that fails only costs the check its shortcut. */
export async function recallUntouched(cache: TermCache, key: string): Promise<Diagnostic[] | undefined> {
  try {
    const json = (await cache.readTerms([key])).get(key);
    if (json === undefined) return undefined;
    await cache.writeTerms([], [key]);
    return JSON.parse(json) as Diagnostic[];
  } catch {
    return undefined;
  }
}

/** Keeps the error-level diagnostics of an untouched text (the only ones a check compares) under `key`; never rejects. */
export async function keepUntouched(cache: TermCache, key: string, diagnostics: readonly Diagnostic[]): Promise<void> {
  try {
    await cache.writeTerms([[key, JSON.stringify(diagnostics.filter((d) => d.severity === ERROR))]], []);
  } catch {
    // The next job checks the untouched text again.
  }
}
