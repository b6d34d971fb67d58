/**
 * One entry of a tree object. `name` holds the name's bytes, one latin1 character each: names compare and sort as git
 * sorts them (byte by byte), and two names are the same only when their bytes are (see entryName for the text).
 */
export interface TreeEntry {
  /** As git reads it: leading zeros dropped (old gits padded a folder's, `040000`). */
  mode: string;
  name: string;
  oid: string;
}

/** A folder's mode (a tree). */
export const FOLDER = "40000";
/** A symbolic link's mode: its blob is the path it points at. */
export const LINK = "120000";
/** A submodule's mode: the entry names a commit of another repository. */
export const SUBMODULE = "160000";
/** An executable file's mode; any other `100…` mode is a plain file's. */
export const EXECUTABLE = "100755";

/** The mode a checkout gives a regular file of the tree mode `mode` (before the umask). */
export function fileModeOf(mode: string): number {
  return mode === EXECUTABLE ? 0o755 : 0o644;
}

/** Whether a mode is a regular file's: `100644` or `100755` (and the `100664` old gits wrote); links and submodules are not. */
export function isRegularFile(mode: string): boolean {
  return mode.startsWith("100");
}

/**
 * The one reader of git's tree objects: `<mode> <name>\0` and the entry's 20-byte id, one after another, in the order
 * they come. Throws on a tree cut inside an entry. Names are not judged here: writing a work tree needs them to be
 * safe (see checkoutNames), comparing trees does not.
 */
export function parseTree(data: Buffer, oid: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < data.length;) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > data.length) throw new Error(`corrupt pack: the tree ${oid} ends inside an entry`);
    entries.push({
      mode: data.toString("latin1", at, space).replace(/^0+(?=.)/, ""),
      name: data.toString("latin1", space + 1, nul),
      oid: data.toString("hex", nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

/** The entry's name as text, read as UTF-8 as git shows it (bytes that are not UTF-8 read as U+FFFD). */
export function entryName(entry: TreeEntry): string {
  return Buffer.from(entry.name, "latin1").toString("utf8");
}

/** A path's part as a TreeEntry names it (its UTF-8 bytes, one latin1 character each). */
export function nameOf(part: string): string {
  return Buffer.from(part, "utf8").toString("latin1");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The names of a tree's entries as a work tree's files and folders are named, in order. Refuses (throws) a tree that
 * names an entry git itself would never check out: one that would reach outside its folder or into `.git`, one named
 * twice, and one whose name is not UTF-8, as two different invalid names would both read as U+FFFD (one name for a
 * link and a file).
 */
export function checkoutNames(entries: TreeEntry[], oid: string): string[] {
  const seen = new Set<string>();
  return entries.map((entry) => {
    let name: string;
    try {
      name = utf8.decode(Buffer.from(entry.name, "latin1"));
    } catch {
      throw new Error(`refusing to check out tree ${oid}: an entry's name is not UTF-8`);
    }
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.toLowerCase() === ".git") {
      throw new Error(`refusing to check out tree ${oid}: it names an entry '${name}', which git never writes`);
    }
    if (seen.has(name)) throw new Error(`refusing to check out tree ${oid}: it names '${name}' twice`);
    seen.add(name);
    return name;
  });
}
