import { entryName, FOLDER, isRegularFile, parseTree, type TreeEntry } from "./parse-tree.js";

/** A tree object's bytes by its id, or undefined when it is not at hand. */
export type ReadTree = (oid: string) => Buffer | undefined;

/** An entry as a diff walks it, with its sort key: the name, and `/` after a folder's (git sorts a tree so, and a file and a folder of one name are two paths). */
type KeyedEntry = TreeEntry & { key: string };

/**
 * The trees a diff reads, each parsed once and sorted as git sorts them: a history compares each commit with its
 * parent, so most trees are read twice or more. One for all the diffs of a history (see compareCommits).
 */
export class ParsedTrees {
  private readonly parsed = new Map<string, KeyedEntry[]>();

  constructor(private readonly readTree: ReadTree) {}

  /** The entries of the tree `oid`, in git's order; throws when it is not at hand. */
  entries(oid: string): KeyedEntry[] {
    const known = this.parsed.get(oid);
    if (known) return known;
    const data = this.readTree(oid);
    if (!data) throw new Error(`corrupt pack: the tree ${oid} is not in the pack`);
    const entries = parseTree(data, oid).map((entry) => ({ ...entry, key: entry.mode === FOLDER ? `${entry.name}/` : entry.name }));
    // git writes them in this order; a tree that is not (hand-made, or a hostile server's) is read as if it were.
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.parsed.set(oid, entries);
    return entries;
  }
}

/** How much of two trees one diff may walk. */
export interface DiffLimits {
  /** Most differing entries (files and folders) walked; folders that share a subtree can name millions of paths in a few small trees. */
  maxEntries: number;
  /** Most folders nested: git refuses deeper trees (core.maxTreeDepth), so only a hostile server sends one. */
  maxDepth: number;
}

/** Well above any commit worth ranking with (see indexHistory), and git's own depth limit. */
export const DIFF_LIMITS: DiffLimits = { maxEntries: 100_000, maxDepth: 4096 };

/**
 * The paths of the files that differ between the trees `from` and `to` (either absent: an empty tree), in the order
 * git's diff-tree lists them, with `/` between folders: files added, deleted, or changed in content or mode. Only
 * folders whose ids differ are read. Links and submodules are left out, as CommitRecord says; a file that becomes a
 * link counts as deleted. Undefined when the difference is larger than `limits` allow. Throws when a tree to be read
 * is not at hand. `trees` reads them: parsed for this diff alone when given as a ReadTree.
 */
export function diffTrees(
  trees: ReadTree | ParsedTrees,
  from: string | undefined,
  to: string | undefined,
  limits: Partial<DiffLimits> = {},
): string[] | undefined {
  const { maxEntries, maxDepth } = { ...DIFF_LIMITS, ...limits };
  const readTree = trees instanceof ParsedTrees ? trees : new ParsedTrees(trees);
  const paths: string[] = [];
  let walked = 0;
  // The folders being walked, innermost last: a stack of its own rather than recursion, which a deep tree would overflow.
  const open = [folder(readTree, from, to, "")];
  while (open.length > 0) {
    const next = step(open.at(-1)!);
    if (next === undefined) {
      open.pop();
      continue;
    }
    const { old, now } = next;
    if (++walked > maxEntries) return undefined;
    const entry = (old ?? now)!;
    const path = `${open.at(-1)!.prefix}${entryName(entry)}`;
    if (entry.mode === FOLDER) {
      if (open.length > maxDepth) return undefined;
      open.push(folder(readTree, old?.oid, now?.oid, `${path}/`));
      continue;
    }
    const oldFile = old && isRegularFile(old.mode) ? old : undefined;
    const newFile = now && isRegularFile(now.mode) ? now : undefined;
    if (oldFile?.oid !== newFile?.oid || oldFile?.mode !== newFile?.mode) paths.push(path);
  }
  return paths;
}

/** One folder of a diff being walked: both sides' entries and how far each has been read. */
interface OpenFolder {
  before: KeyedEntry[];
  after: KeyedEntry[];
  i: number;
  j: number;
  prefix: string;
}

/** A folder of the diff, its two sides read. */
function folder(trees: ParsedTrees, from: string | undefined, to: string | undefined, prefix: string): OpenFolder {
  return { before: from === undefined ? [] : trees.entries(from), after: to === undefined ? [] : trees.entries(to), i: 0, j: 0, prefix };
}

/** The folder's next entry that differs between its sides, walking both in git's order (latin1 strings compare as their bytes do); undefined at its end. */
function step(at: OpenFolder): { old?: KeyedEntry; now?: KeyedEntry } | undefined {
  while (at.i < at.before.length || at.j < at.after.length) {
    const a = at.before[at.i];
    const b = at.after[at.j];
    let old: KeyedEntry | undefined;
    let now: KeyedEntry | undefined;
    if (b === undefined || (a !== undefined && a.key < b.key)) old = at.before[at.i++];
    else if (a === undefined || b.key < a.key) now = at.after[at.j++];
    else {
      old = at.before[at.i++];
      now = at.after[at.j++];
    }
    // Most entries of a tree are the same on both sides: nothing to name.
    if (!(old && now && old.oid === now.oid && old.mode === now.mode)) return { old, now };
  }
  return undefined;
}
