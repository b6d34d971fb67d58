import fs from "node:fs";
import path from "node:path";
import { judgeCandidate, readCandidate, type JudgeFile, type SkipReason, type SourceFile, type Verdict } from "./read-candidate.js";
import type { ClonedFile, WrittenTree } from "../../git/write-worktree.js";
import { globMatcher } from "../../lib/glob.js";
import { sliceWork, type Pause } from "../../lib/slice-work.js";

export type { SkipReason, SourceFile };

/** The candidate files of a checkout and how many files each rule left out. */
export interface CandidateSet {
  files: SourceFile[];
  skipped: Record<SkipReason, number>;
  /** Files that were read as Latin-1 because they are not valid UTF-8. */
  nonUtf8: string[];
}

export interface ListOptions {
  /** Glob patterns (config `exclude`) of files never considered. */
  exclude: string[];
  /** Files larger than this (config `max_file_bytes`) are left out. */
  maxFileBytes: number;
}

// Directories that hold dependencies, build output or tool state rather than the project's own code.
const SKIPPED_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "jspm_packages",
  "vendor",
  "third_party",
  "third-party",
  "thirdparty",
  "extern",
  "cextern",
  "external",
  "dist",
  "out",
  "coverage",
  ".nyc_output",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".eggs",
  ".next",
  ".nuxt",
  ".cache",
  ".idea",
  ".vscode",
  "site-packages",
  ".gradle",
  ".terraform",
  ".magis",
]);

/** Why the walk does not enter a folder (`rel` its repository-relative path), or null. */
function skipFolder(rel: string, excluded: (p: string) => boolean): "vendored" | "excluded" | null {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  if (SKIPPED_DIRS.has(name) || name.endsWith(".egg-info")) return "vendored";
  if (excluded(rel + "/")) return "excluded";
  return null;
}

/** The config's excludes as a test of a repository-relative path (a folder's ends with `/`). */
function excluder(options: ListOptions): (rel: string) => boolean {
  const matchExcluded = options.exclude.length > 0 ? globMatcher(options.exclude) : () => false;
  return (rel) => matchExcluded(rel) || (rel.endsWith("/") && matchExcluded(rel.slice(0, -1)));
}

/**
 * Whether listCandidates would list the file at `rel` by its path (its folders walked into, itself not excluded),
 * for a clone that sees each file as it writes it.
 */
export function listedPath(options: ListOptions): (rel: string) => boolean {
  const excluded = excluder(options);
  return (rel) => !skippedFolderOf(rel, excluded) && !excluded(rel);
}

/** Recursively lists the regular files under root (relative paths), never following symbolic links. */
async function walk(root: string, skip: Record<SkipReason, number>, excluded: (p: string) => boolean, pause: Pause): Promise<string[]> {
  const found: string[] = [];
  const pending = [""];
  while (pending.length > 0) {
    await pause();
    const dir = pending.pop()!;
    let entries;
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue; // a directory removed while we walk is simply not there
    }
    for (const entry of entries) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      // Links are skipped, not followed: a link inside a repository is attacker-controlled and may lead
      // outside it, and a link to a file inside it would only rank the same text twice.
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        const reason = skipFolder(rel, excluded);
        if (reason) skip[reason]++;
        else pending.push(rel);
      } else if (entry.isFile()) {
        found.push(rel);
      }
    }
  }
  return found.sort();
}

/** Counts of files left out by each rule, all zero. */
function noneSkipped(): Record<SkipReason, number> {
  return { excluded: 0, vendored: 0, binary: 0, lock: 0, minified: 0, generated: 0, "too-large": 0, vanished: 0, unreadable: 0 };
}

/** Judges files one by one (`judge` reads one, or takes it at hand), in path order, into a candidate set; yields to the event loop between them. */
async function judgeAll(paths: string[], skipped: Record<SkipReason, number>, judge: (rel: string) => Verdict, pause: Pause): Promise<CandidateSet> {
  const files: SourceFile[] = [];
  const nonUtf8: string[] = [];
  for (const rel of paths) {
    await pause();
    const verdict = judge(rel);
    if ("skip" in verdict) {
      skipped[verdict.skip]++;
      continue;
    }
    files.push(verdict.file);
    if (verdict.latin1) nonUtf8.push(verdict.file.path);
  }
  return { files, skipped, nonUtf8 };
}

/**
 * Lists the text files of a checkout the Custodian may rank: a plain directory walk (no git needed, so
 * it works on isomorphic-git clones and on any folder) minus dependencies, build output, binaries, lock
 * files, minified bundles, generated code, files over the size cap and the configured excludes.
 */
export async function listCandidates(root: string, options: ListOptions): Promise<CandidateSet> {
  const skipped = noneSkipped();
  const realRoot = await fs.promises.realpath(root);
  const excluded = excluder(options);
  // The walk and reads are synchronous (see readCandidate); a server has other requests to answer meanwhile.
  const pause = sliceWork();
  const paths = (await walk(realRoot, skipped, excluded, pause)).filter((rel) => {
    if (!excluded(rel)) return true;
    skipped.excluded++;
    return false;
  });
  return judgeAll(paths, skipped, (rel) => readCandidate(realRoot, rel, options.maxFileBytes), pause);
}

/**
 * The candidates listCandidates finds in a checkout, from what its clone wrote there (the files' paths, blob ids and
 * bytes at hand, and the folders): the same files in the same order, each with its blob id, and the same counts of
 * what was left out, without walking the work tree and reading every file back. `judgeFile` decides on each file (the
 * job's index answers what it decided while the clone wrote it, see openJobIndex).
 */
export async function listWrittenFiles(
  written: WrittenTree,
  options: ListOptions,
  judgeFile: JudgeFile = (file, maxFileBytes) => judgeCandidate(file.path, file.bytes, maxFileBytes),
): Promise<CandidateSet> {
  const skipped = noneSkipped();
  // The walk skips the checkout's .git, as a vendored folder.
  skipped.vendored++;
  const excluded = excluder(options);
  // The walk counts a folder it does not enter once, and never looks inside it.
  const skippedFolders = new Map<string, "vendored" | "excluded">();
  for (const folder of written.folders) {
    const outermost = skippedFolderOf(`${folder}/`, excluded);
    if (outermost) skippedFolders.set(outermost.path, outermost.reason);
  }
  for (const reason of skippedFolders.values()) skipped[reason]++;
  const byPath = new Map<string, ClonedFile>();
  for (const file of written.files) {
    if (skippedFolderOf(file.path, excluded)) continue;
    if (excluded(file.path)) skipped.excluded++;
    else byPath.set(file.path, file);
  }
  const judge = (rel: string): Verdict => {
    const file = byPath.get(rel)!;
    const verdict = judgeFile(file, options.maxFileBytes);
    return "skip" in verdict ? verdict : { ...verdict, file: { ...verdict.file, oid: file.oid } };
  };
  return judgeAll([...byPath.keys()].sort(), skipped, judge, sliceWork());
}

/** The outermost folder of `rel` the walk does not enter, and why, or null. */
function skippedFolderOf(rel: string, excluded: (p: string) => boolean): { path: string; reason: "vendored" | "excluded" } | null {
  for (let slash = rel.indexOf("/"); slash !== -1; slash = rel.indexOf("/", slash + 1)) {
    const folder = rel.slice(0, slash);
    const reason = skipFolder(folder, excluded);
    if (reason) return { path: folder, reason };
  }
  return null;
}
