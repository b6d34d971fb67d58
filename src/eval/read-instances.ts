import fs from "node:fs";
import path from "node:path";

// An instance id names a folder and a trace file of its own: a plain name, never "." or "..", and short enough to be
// one (a 5,000-character id failed the whole run with ENAMETOOLONG).
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_ID_LENGTH = 128;
// A commit is named by its hex id: anything else (a name beginning with "-") must never reach git as an argument.
const COMMIT_ID = /^[0-9a-f]{7,64}$/i;

/** `<parent>/<instance_id>`, refusing an id that would name anything but one folder inside `parent`. */
export function instanceDir(parent: string, id: string): string {
  const dir = path.resolve(parent, id);
  if (!PLAIN_ID.test(id) || id.length > MAX_ID_LENGTH || path.dirname(dir) !== path.resolve(parent))
    throw new Error(`'${id}' is not a plain instance id, so it names no folder of its own`);
  return dir;
}

/** One SWE-bench-style instance: the issue, where its repository stands, and the human fix when known. */
export interface BenchInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  hints_text?: string;
  /** The human fix as a unified diff (SWE-bench's `patch`), when the record has one. */
  patch?: string;
  /** The files the human fix touches. */
  gold_files: string[];
}

/** A line of the data file that is not a usable instance: its 1-based number, the id when it names one, and why. */
export interface BadInstanceLine {
  line: number;
  instance_id: string;
  reason: string;
}

/** Paths of the files a unified diff changes (its `diff --git` lines). */
export function filesOfPatch(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) files.add(match[2]!);
  return [...files];
}

/**
 * Reads SWE-bench-style JSON Lines, line by line: each line is an instance or, when it cannot be one, a bad line
 * saying why (so one broken record does not stop a run). `gold_files` comes from the record or, failing that, from its `patch`.
 */
export function readInstanceLines(file: string): (BenchInstance | BadInstanceLine)[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const read: (BenchInstance | BadInstanceLine)[] = [];
  lines.forEach((text, index) => {
    if (text.trim() === "") return;
    const parsed = parseInstance(text);
    read.push(
      typeof parsed === "string" ? { line: index + 1, instance_id: idOf(text) ?? `line-${index + 1}`, reason: `${file}:${index + 1} ${parsed}` } : parsed,
    );
  });
  return read;
}

/** Reads SWE-bench-style JSON Lines and throws at the first line that is not a usable instance (the benchmarks' strict mode). */
export function readInstances(file: string): BenchInstance[] {
  return readInstanceLines(file).map((entry) => {
    if ("reason" in entry) throw new Error(entry.reason);
    return entry;
  });
}

/** Whether a read line is a bad one. */
export function isBadLine(entry: BenchInstance | BadInstanceLine): entry is BadInstanceLine {
  return "reason" in entry;
}

function parseInstance(text: string): BenchInstance | string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return "is not JSON; each line must be one instance object";
  }
  if (record === null || typeof record !== "object" || Array.isArray(record)) return "is not a JSON object; each line must be one instance object";
  for (const field of ["instance_id", "repo", "base_commit", "problem_statement"]) {
    if (typeof record[field] !== "string" || record[field] === "") return `has no string '${field}'`;
  }
  const id = record.instance_id as string;
  if (id.length > MAX_ID_LENGTH) return `has an instance_id of ${id.length} characters; an id names a file, and may have at most ${MAX_ID_LENGTH}`;
  if (!PLAIN_ID.test(id)) return `has an instance_id that is not a plain file name (a letter or digit, then letters, digits, '.', '_', '-')`;
  if (!COMMIT_ID.test(record.base_commit as string)) return "has a 'base_commit' that is not a commit id (7 to 64 hexadecimal digits)";
  for (const field of ["patch", "hints_text"]) {
    if (record[field] !== undefined && record[field] !== null && typeof record[field] !== "string") return `has a '${field}' that is not a string`;
  }
  if (record.gold_files !== undefined && !(Array.isArray(record.gold_files) && record.gold_files.every((f) => typeof f === "string"))) {
    return "has a 'gold_files' that is not a list of paths";
  }
  const gold = Array.isArray(record.gold_files) ? (record.gold_files as string[]) : typeof record.patch === "string" ? filesOfPatch(record.patch) : [];
  if (gold.length === 0) return "has neither 'gold_files' nor a 'patch' to take them from";
  return { ...(record as unknown as BenchInstance), gold_files: gold };
}

/** The instance_id of a line that is otherwise unusable, when one can be read from it. */
function idOf(text: string): string | null {
  const match = /"instance_id"\s*:\s*"([A-Za-z0-9][A-Za-z0-9._-]{0,127})"/.exec(text);
  return match ? match[1]! : null;
}
