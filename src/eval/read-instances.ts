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
  /** SWE-bench's tests of the fix as a unified diff, when the record has them: `--oracle` reproduces the issue with them. */
  test_patch?: string;
  /** The tests that fail before the fix and pass after it (SWE-bench keeps them as a JSON text of a list). */
  FAIL_TO_PASS?: string | string[];
  /** The repository's version SWE-bench sets the instance up as ("2.0"): what `--environments` picks an entry by. */
  version?: string;
}

/** The FAIL_TO_PASS tests of an instance as a list (empty when it names none or they cannot be read). */
export function failToPassOf(instance: BenchInstance): string[] {
  const value = instance.FAIL_TO_PASS;
  if (Array.isArray(value)) return value;
  if (typeof value !== "string" || value.trim() === "") return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === "string") : [];
  } catch {
    return [];
  }
}

/** A record of the data file that is not a usable instance: where it is, the id when it names one, and why. */
export interface BadInstanceRecord {
  /** `FILE:LINE` in JSON Lines, `FILE item N` in a JSON array (both 1-based). */
  where: string;
  instance_id: string;
  reason: string;
}

/** Thrown when a run's inputs are refused before anything runs (a data file that holds no instances, an unknown id); the message names the input and what was expected. */
export class EvalInputError extends Error {}

const EXPECTED =
  "SWE-bench instances, as JSON Lines (one instance object a line) or as a JSON array of instance objects (SWE-bench's .json), each with instance_id, repo, base_commit, problem_statement, and patch or gold_files";

/** Paths of the files a unified diff changes (its `diff --git` lines). */
export function filesOfPatch(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) files.add(match[2]!);
  return [...files];
}

/**
 * Reads a SWE-bench-style data file into its records, each an instance or, when it cannot be one, a bad record saying
 * why (so one broken record does not stop a run). The format is told by the content, never the file's name:
 *  1. `PAR1` first: a Parquet file, refused with the way to convert it;
 *  2. nothing but white space: refused;
 *  3. `[` first (after white space): a JSON array, parsed whole (refused when it does not parse), an instance an item;
 *  4. otherwise JSON Lines, an instance a line, when at least one line is a JSON object; refused when none is.
 * Refusals are EvalInputErrors naming the file and what was expected. `gold_files` comes from the record or, failing
 * that, from its `patch`.
 */
export function readInstanceRecords(file: string): (BenchInstance | BadInstanceRecord)[] {
  const bytes = fs.readFileSync(file);
  if (bytes.subarray(0, 4).toString("latin1") === "PAR1")
    throw new EvalInputError(`${file} is a Parquet file; convert it to JSON Lines first (docs/evaluation.md shows how): expected ${EXPECTED}`);
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  const start = text.trimStart();
  if (start === "") throw new EvalInputError(`${file} is empty: expected ${EXPECTED}`);
  return start.startsWith("[") ? readJsonArray(file, text) : readJsonLines(file, text);
}

function readJsonArray(file: string, text: string): (BenchInstance | BadInstanceRecord)[] {
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EvalInputError(`${file} begins with '[' but is not a JSON array (${reason}): expected ${EXPECTED}`);
  }
  if (!Array.isArray(items)) throw new EvalInputError(`${file} begins with '[' but is not a JSON array: expected ${EXPECTED}`);
  return items.map((item, index) => toInstance(item, `${file} item ${index + 1}`, `item-${index + 1}`));
}

function readJsonLines(file: string, text: string): (BenchInstance | BadInstanceRecord)[] {
  const read: (BenchInstance | BadInstanceRecord)[] = [];
  let objects = 0;
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      read.push({ where, instance_id: idOf(line) ?? `line-${index + 1}`, reason: `${where} is not JSON; each line must be one instance object` });
      return;
    }
    if (isObject(value)) objects++;
    read.push(toInstance(value, where, `line-${index + 1}`));
  });
  if (objects === 0) {
    const first = text.trimStart().split("\n")[0]!.trim();
    throw new EvalInputError(
      `${file} is neither JSON Lines nor a JSON array: no line of it is a JSON object (it begins '${first.length > 40 ? `${first.slice(0, 40)}…` : first}'); expected ${EXPECTED}`,
    );
  }
  return read;
}

/** Reads a SWE-bench-style data file (see readInstanceRecords) and throws at the first record that is not a usable instance (the benchmarks' strict mode). */
export function readInstances(file: string): BenchInstance[] {
  return readInstanceRecords(file).map((entry) => {
    if ("reason" in entry) throw new Error(entry.reason);
    return entry;
  });
}

/** Whether a read record is a bad one. */
export function isBadRecord(entry: BenchInstance | BadInstanceRecord): entry is BadInstanceRecord {
  return "reason" in entry;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The instance a parsed record is, or a bad record at `where` (its id, when it names no usable one, `fallbackId`). */
function toInstance(value: unknown, where: string, fallbackId: string): BenchInstance | BadInstanceRecord {
  const checked = checkRecord(value);
  if (typeof checked !== "string") return checked;
  const id = isObject(value) ? value.instance_id : undefined;
  const usable = typeof id === "string" && id.length <= MAX_ID_LENGTH && PLAIN_ID.test(id);
  return { where, instance_id: usable ? id : fallbackId, reason: `${where} ${checked}` };
}

/** The instance a record is, or why it is none. */
function checkRecord(record: unknown): BenchInstance | string {
  if (!isObject(record)) return "is not a JSON object; each record must be one instance object";
  for (const field of ["instance_id", "repo", "base_commit", "problem_statement"]) {
    if (typeof record[field] !== "string" || record[field] === "") return `has no string '${field}'`;
  }
  const id = record.instance_id as string;
  if (id.length > MAX_ID_LENGTH) return `has an instance_id of ${id.length} characters; an id names a file, and may have at most ${MAX_ID_LENGTH}`;
  if (!PLAIN_ID.test(id)) return `has an instance_id that is not a plain file name (a letter or digit, then letters, digits, '.', '_', '-')`;
  if (!COMMIT_ID.test(record.base_commit as string)) return "has a 'base_commit' that is not a commit id (7 to 64 hexadecimal digits)";
  for (const field of ["patch", "hints_text", "test_patch"]) {
    if (record[field] !== undefined && record[field] !== null && typeof record[field] !== "string") return `has a '${field}' that is not a string`;
  }
  if (record.gold_files !== undefined && !(Array.isArray(record.gold_files) && record.gold_files.every((f) => typeof f === "string"))) {
    return "has a 'gold_files' that is not a list of paths";
  }
  const gold = Array.isArray(record.gold_files) ? (record.gold_files as string[]) : typeof record.patch === "string" ? filesOfPatch(record.patch) : [];
  if (gold.length === 0) return "has neither 'gold_files' nor a 'patch' to take them from";
  // A version written as a number (3.0 from a table's float column) is the same version as text.
  const version = typeof record.version === "number" || typeof record.version === "string" ? String(record.version) : undefined;
  const instance: BenchInstance = { ...(record as unknown as BenchInstance), gold_files: gold };
  if (version === undefined) delete instance.version;
  else instance.version = version;
  return instance;
}

/** The instance_id of a line that is not JSON, when one can be read from it. */
function idOf(text: string): string | null {
  const match = /"instance_id"\s*:\s*"([A-Za-z0-9][A-Za-z0-9._-]{0,127})"/.exec(text);
  return match ? match[1]! : null;
}
