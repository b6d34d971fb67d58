/** A tree object's bytes by its id, or undefined when it is not at hand. */
export type ReadTree = (oid: string) => Buffer | undefined;

/** One entry of a tree: its mode (as git writes it, `40000` for a folder), its name's bytes as latin1, its id, and its sort key. */
interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
  /** The name, and `/` after a folder's: git sorts a tree's entries so, and a file and a folder of one name are two paths. */
  key: string;
}

const FOLDER = "40000";

/** Whether a mode is a file's: `100644` or `100755` (and the `100664` old gits wrote); links (`120000`) and submodules (`160000`) are not. */
function isFile(mode: string): boolean {
  return mode.startsWith("100");
}

// A history compares each commit with its parent, so most trees are read twice or more: parsed once per object.
const parsed = new WeakMap<Buffer, TreeEntry[]>();

/** The entries of a tree object: `<mode> <name>\0<20-byte id>` one after another. */
function readEntries(readTree: ReadTree, oid: string): TreeEntry[] {
  const data = readTree(oid);
  if (!data) throw new Error(`corrupt pack: the tree ${oid} is not in the pack`);
  const known = parsed.get(data);
  if (known) return known;
  const entries: TreeEntry[] = [];
  for (let at = 0; at < data.length;) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > data.length) throw new Error(`corrupt pack: the tree ${oid} ends inside an entry`);
    const mode = data.toString("latin1", at, space);
    const name = data.toString("latin1", space + 1, nul);
    entries.push({ mode, name, oid: data.toString("hex", nul + 1, nul + 21), key: mode === FOLDER ? `${name}/` : name });
    at = nul + 21;
  }
  // git writes them in this order; a tree that is not (hand-made, or a hostile server's) is read as if it were.
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  parsed.set(data, entries);
  return entries;
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
 * is not at hand.
 */
export function diffTrees(readTree: ReadTree, from: string | undefined, to: string | undefined, limits: Partial<DiffLimits> = {}): string[] | undefined {
  const { maxEntries, maxDepth } = { ...DIFF_LIMITS, ...limits };
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
    const path = `${open.at(-1)!.prefix}${Buffer.from(entry.name, "latin1").toString("utf8")}`;
    if (entry.mode === FOLDER) {
      if (open.length > maxDepth) return undefined;
      open.push(folder(readTree, old?.oid, now?.oid, `${path}/`));
      continue;
    }
    const oldFile = old && isFile(old.mode) ? old : undefined;
    const newFile = now && isFile(now.mode) ? now : undefined;
    if (oldFile?.oid !== newFile?.oid || oldFile?.mode !== newFile?.mode) paths.push(path);
  }
  return paths;
}

/** One folder of a diff being walked: both sides' entries and how far each has been read. */
interface OpenFolder {
  before: TreeEntry[];
  after: TreeEntry[];
  i: number;
  j: number;
  prefix: string;
}

/** A folder of the diff, its two sides read. */
function folder(readTree: ReadTree, from: string | undefined, to: string | undefined, prefix: string): OpenFolder {
  return { before: from === undefined ? [] : readEntries(readTree, from), after: to === undefined ? [] : readEntries(readTree, to), i: 0, j: 0, prefix };
}

/** The folder's next entry that differs between its sides, walking both in git's order (latin1 strings compare as their bytes do); undefined at its end. */
function step(at: OpenFolder): { old?: TreeEntry; now?: TreeEntry } | undefined {
  while (at.i < at.before.length || at.j < at.after.length) {
    const a = at.before[at.i];
    const b = at.after[at.j];
    let old: TreeEntry | undefined;
    let now: TreeEntry | undefined;
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
