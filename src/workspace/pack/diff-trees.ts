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
  for (let at = 0; at < data.length; ) {
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

/**
 * The paths of the files that differ between the trees `from` and `to` (either absent: an empty tree), in the order
 * git's diff-tree lists them, with `/` between folders: files added, deleted, or changed in content or mode. Only
 * folders whose ids differ are read. Links and submodules are left out, as CommitRecord says; a file that becomes a
 * link counts as deleted. Throws when a tree to be read is not at hand.
 */
export function diffTrees(readTree: ReadTree, from: string | undefined, to: string | undefined): string[] {
  const paths: string[] = [];
  diffInto(readTree, from, to, "", paths);
  return paths;
}

/** Walks the two trees' entries side by side in git's order (latin1 strings compare as their bytes do). */
function diffInto(readTree: ReadTree, from: string | undefined, to: string | undefined, prefix: string, paths: string[]): void {
  const before = from === undefined ? [] : readEntries(readTree, from);
  const after = to === undefined ? [] : readEntries(readTree, to);
  for (let i = 0, j = 0; i < before.length || j < after.length; ) {
    const a = before[i];
    const b = after[j];
    let old: TreeEntry | undefined;
    let now: TreeEntry | undefined;
    if (b === undefined || (a !== undefined && a.key < b.key)) old = before[i++];
    else if (a === undefined || b.key < a.key) now = after[j++];
    else {
      old = before[i++];
      now = after[j++];
    }
    // Most entries of a tree are the same on both sides: nothing to name.
    if (old && now && old.oid === now.oid && old.mode === now.mode) continue;
    const entry = (old ?? now)!;
    const path = `${prefix}${Buffer.from(entry.name, "latin1").toString("utf8")}`;
    if (entry.mode === FOLDER) {
      diffInto(readTree, old?.oid, now?.oid, `${path}/`, paths);
      continue;
    }
    const oldFile = old && isFile(old.mode) ? old : undefined;
    const newFile = now && isFile(now.mode) ? now : undefined;
    if (oldFile?.oid !== newFile?.oid || oldFile?.mode !== newFile?.mode) paths.push(path);
  }
}
