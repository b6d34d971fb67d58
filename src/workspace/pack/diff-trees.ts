/** A tree object's bytes by its id, or undefined when it is not at hand. */
export type ReadTree = (oid: string) => Buffer | undefined;

/** One entry of a tree: its mode (as git writes it, `40000` for a folder), its name's bytes as latin1 and its id. */
interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

const FOLDER = "40000";

/** Whether a mode is a file's: `100644` or `100755` (and the `100664` old gits wrote); links (`120000`) and submodules (`160000`) are not. */
function isFile(mode: string): boolean {
  return mode.startsWith("100");
}

/** The entries of a tree object: `<mode> <name>\0<20-byte id>` one after another. */
function readEntries(data: Buffer, oid: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > data.length) throw new Error(`corrupt pack: the tree ${oid} ends inside an entry`);
    entries.push({ mode: data.toString("latin1", at, space), name: data.toString("latin1", space + 1, nul), oid: data.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
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

function diffInto(readTree: ReadTree, from: string | undefined, to: string | undefined, prefix: string, paths: string[]): void {
  // Keyed as git sorts tree entries, a folder's name followed by '/': a file and a folder of one name are two paths.
  const sides = new Map<string, { from?: TreeEntry; to?: TreeEntry }>();
  for (const [side, oid] of [["from", from], ["to", to]] as const) {
    if (oid === undefined) continue;
    const data = readTree(oid);
    if (!data) throw new Error(`corrupt pack: the tree ${oid} is not in the pack`);
    for (const entry of readEntries(data, oid)) {
      const key = entry.mode === FOLDER ? `${entry.name}/` : entry.name;
      sides.set(key, { ...sides.get(key), [side]: entry });
    }
  }
  // latin1 keys compare as their bytes do, which is git's order.
  for (const key of [...sides.keys()].sort()) {
    const { from: old, to: now } = sides.get(key)!;
    const entry = (old ?? now)!;
    const path = `${prefix}${Buffer.from(entry.name, "latin1").toString("utf8")}`;
    if (entry.mode === FOLDER) {
      if (old?.oid !== now?.oid) diffInto(readTree, old?.oid, now?.oid, `${path}/`, paths);
      continue;
    }
    const oldFile = old && isFile(old.mode) ? old : undefined;
    const newFile = now && isFile(now.mode) ? now : undefined;
    if (oldFile?.oid !== newFile?.oid || oldFile?.mode !== newFile?.mode) paths.push(path);
  }
}
