import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { PackObjects, type PackedObject } from "./pack/pack-objects.js";

// Writes overlap their I/O: each is an open, a write and a close on libuv's few threads, and with more of them
// waiting those threads never idle between one file's steps (32 wrote sympy's 2,087 files in about a fifth less
// time than 8 did on an ext4 disk). Each holds one blob.
const PARALLEL_WRITES = 32;
// Files handed to `onFiles` at once.
const BATCH_FILES = 200;

/** A regular file the work tree has been given: its path in the repository, its blob id and its bytes. */
export interface ClonedFile {
  path: string;
  oid: string;
  bytes: Buffer;
}

/** What a clone wrote: its regular files, and every folder it made (submodules' empty ones too), by repository path. */
export interface WrittenTree {
  files: ClonedFile[];
  folders: string[];
}

/** One entry of a git tree object. */
interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

const names = new TextDecoder("utf-8", { fatal: true });

/** The entries of a tree object: `<mode> <name>\0` and 20 bytes of object id, one after another. */
function parseTree(data: Buffer, oid: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const seen = new Set<string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new Error(`corrupt tree ${oid}: an entry is cut short`);
    let name: string;
    try {
      name = names.decode(data.subarray(space + 1, nul));
    } catch {
      // Two different invalid byte sequences would both read as U+FFFD: one name for a link and a file.
      throw new Error(`refusing to check out tree ${oid}: an entry's name is not UTF-8`);
    }
    // Names git itself refuses to check out: they would reach outside the entry's folder or into .git.
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.toLowerCase() === ".git") {
      throw new Error(`refusing to check out tree ${oid}: it names an entry '${name}', which git never writes`);
    }
    if (seen.has(name)) throw new Error(`refusing to check out tree ${oid}: it names '${name}' twice`);
    seen.add(name);
    // Old trees may pad a folder's mode with a zero ("040000"); git reads it as 40000.
    entries.push({ mode: data.toString("latin1", at, space).replace(/^0+/, ""), name, oid: data.toString("hex", nul + 1, nul + 21) });
    at = nul + 21;
  }
  return entries;
}

/** An object isomorphic-git reads for us: one stored loose rather than in a pack. */
async function readLoose(dir: string, oid: string): Promise<{ type: string; data: Buffer }> {
  const loose = await git.readObject({ fs, dir, oid, format: "content" });
  return { type: loose.type, data: Buffer.from(loose.object as Uint8Array) };
}

type ReadObject = (oid: string, want: PackedObject["type"]) => Promise<Buffer>;

type ListedFile = { rel: string; oid: string; mode: string };

/** The files under `tree` (links included) with their modes and blobs, added to `files`; folders and submodules are made on the way, and added to `folders`. */
async function listFiles(dir: string, tree: string, read: ReadObject, folder: string, files: ListedFile[], folders: string[]): Promise<void> {
  for (const entry of parseTree(await read(tree, "tree"), tree)) {
    const rel = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.mode === "40000" || entry.mode === "160000") {
      fs.mkdirSync(path.join(dir, rel), { recursive: true });
      folders.push(rel);
      if (entry.mode === "40000") await listFiles(dir, entry.oid, read, rel, files, folders);
    } else {
      files.push({ rel, oid: entry.oid, mode: entry.mode });
    }
  }
}

/**
 * Writes the files of `commit` into the work tree at `dir` (which holds its `.git`), as a checkout would but
 * without building an index: the bot commits from trees, and the Custodian walks the directory. Objects are
 * read from the clone's pack with Node's zlib (see PackObjects), loose ones through isomorphic-git.
 * Executable bits and symbolic links are kept; submodules become empty directories, as git leaves them.
 * `onFiles` is given the regular files in batches as they are written, and runs while their writes are under way.
 * `blobs` are blobs already inflated (by the pack's indexing), by id; the others are read from the packs.
 * Returns how many files it wrote, and the folders it made.
 */
export async function writeWorktree(
  dir: string,
  commit: string,
  { onFiles, blobs }: { onFiles?: (files: ClonedFile[]) => Promise<void>; blobs?: ReadonlyMap<string, Buffer> } = {},
): Promise<{ files: number; folders: string[] }> {
  const packs = new PackObjects(path.join(dir, ".git"));
  const read: ReadObject = async (oid, want) => {
    const held = want === "blob" ? blobs?.get(oid) : undefined;
    if (held) return held;
    const object = packs.read(oid) ?? (await readLoose(dir, oid));
    if (object.type !== want) throw new Error(`object ${oid} is a ${object.type}, not the ${want} its parent names`);
    return object.data;
  };
  const header = (await read(commit, "commit")).toString("latin1", 0, 64);
  const tree = /^tree ([0-9a-f]{40})\n/.exec(header)?.[1];
  if (!tree) throw new Error(`corrupt commit ${commit}: it names no tree`);
  const files: ListedFile[] = [];
  const folders: string[] = [];
  await listFiles(dir, tree, read, "", files, folders);
  let next = 0;
  const batch: ClonedFile[] = [];
  const writer = async () => {
    while (next < files.length) {
      const { rel, oid, mode } = files[next++]!;
      const file = path.join(dir, rel);
      const blob = await read(oid, "blob");
      if (mode === "120000") {
        await fs.promises.symlink(blob.toString("utf8"), file);
        continue;
      }
      // "wx": never through a link or onto a file already there, whatever the tree says.
      const written = fs.promises.writeFile(file, blob, { mode: mode === "100755" ? 0o755 : 0o644, flag: "wx" });
      if (onFiles) batch.push({ path: rel, oid, bytes: blob });
      await Promise.all([written, onFiles && batch.length >= BATCH_FILES ? onFiles(batch.splice(0)) : undefined]);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_WRITES }, writer));
  if (onFiles && batch.length > 0) await onFiles(batch.splice(0));
  return { files: files.length, folders };
}
