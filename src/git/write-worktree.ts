import fs from "node:fs";
import path from "node:path";
import type { PackedObject } from "./pack/pack-objects.js";
import { parseCommit } from "./pack/parse-commit.js";
import { checkoutNames, fileModeOf, FOLDER, LINK, parseTree, SUBMODULE } from "./pack/parse-tree.js";
import { checkedObject } from "./git-object-id.js";
import { GitObjects } from "./read-git-objects.js";

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

/**
 * Where a clone hands the files it writes, as it writes them: all the clone knows of whoever listens (a job's index,
 * see withShallowClone). Declared here so that git's side needs nothing of theirs.
 */
export interface CloneSink {
  /** The clone starts writing the work tree; called again when a failed clone is tried again, whose files no longer stand. */
  start(): void;
  /** Regular files just written, in batches, with their blob ids and bytes; the clone's writes wait for it. */
  add(files: ClonedFile[]): Promise<void>;
  /** The work tree is written: every folder it has. */
  done(folders: string[]): void;
}

/** A file of a commit's tree (links included) at its place in the work tree, with its blob and mode. */
export type ListedFile = { rel: string; oid: string; mode: string };

/** An entry of a tree at its place in the work tree: a file (links included), a folder, or a submodule (left an empty folder). */
type Place = ListedFile & { kind: "file" | "folder" | "submodule" };

/** The entries of the tree `oid` (its bytes `data`) when it fills `folder` of the work tree ("" for the root); refuses names git never checks out. */
function placesIn(data: Buffer, oid: string, folder: string): Place[] {
  const entries = parseTree(data, oid);
  const names = checkoutNames(entries, oid);
  return entries.map(({ mode, oid: entryOid }, i) => ({
    kind: mode === FOLDER ? "folder" : mode === SUBMODULE ? "submodule" : "file",
    rel: folder === "" ? names[i]! : `${folder}/${names[i]!}`,
    oid: entryOid,
    mode,
  }));
}

type ReadObject = (oid: string, want: PackedObject["type"]) => Promise<Buffer>;

/** Adds `value` to the list `map` holds under `key`. */
function addTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The files under `tree` (links included) with their modes and blobs, added to `files`; its folders and submodules are handed to `makeFolder` on the way, and added to `folders`. */
async function listFiles(
  tree: string,
  read: ReadObject,
  into: { folder: string; files: ListedFile[]; folders: string[]; makeFolder: (rel: string) => void },
): Promise<void> {
  const { folder, files, folders, makeFolder } = into;
  for (const { kind, rel, oid, mode } of placesIn(await read(tree, "tree"), tree, folder)) {
    if (kind === "file") {
      files.push({ rel, oid, mode });
      continue;
    }
    makeFolder(rel);
    folders.push(rel);
    if (kind === "folder") await listFiles(oid, read, { folder: rel, files, folders, makeFolder });
  }
}

/**
 * The files of `commit` (links included) and its folders (submodules' too), read from the packs of `gitDir`, in the
 * order a checkout places them. With `checked`, the commit and each tree are checked against their ids.
 */
export async function listCommit(gitDir: string, commit: string, { checked = false } = {}): Promise<{ files: ListedFile[]; folders: string[] }> {
  const objects = new GitObjects(gitDir);
  try {
    const read: ReadObject = async (oid, want) => (checked ? checkedObject(oid, want, objects.readAs(oid, want)) : objects.readAs(oid, want));
    const files: ListedFile[] = [];
    const folders: string[] = [];
    await listFiles(parseCommit(await read(commit, "commit"), commit).tree, read, { folder: "", files, folders, makeFolder: () => {} });
    return { files, folders };
  } finally {
    objects.close();
  }
}

/**
 * Writes one entry of a tree at `at`, as the clone writes it: a link as a link, a file with its mode, and never
 * through a link or onto a file already there, whatever the tree says ("wx").
 */
export function writeTreeEntry(at: string, mode: string, blob: Buffer): Promise<void> {
  if (mode === LINK) return fs.promises.symlink(blob.toString("utf8"), at);
  return fs.promises.writeFile(at, blob, { mode: fileModeOf(mode), flag: "wx" });
}

// Most bytes of trees a writer holds that came before their place in the work tree was known: git sends a tree
// before what it holds, so a whole clone's trees seldom wait; past the bound, their files wait for the last pass.
const MAX_HELD_TREE_BYTES = 32 * 2 ** 20;

/**
 * Writes the files of one commit into the work tree at `dir` (which holds its `.git`). Shown the pack's objects as
 * they arrive (see PackArriving), it writes each file as soon as its blob and the trees above it have come, while the
 * server still sends the rest; `write` then lists the whole commit from the indexed pack and writes what is left.
 * Every object it is shown is named by its bytes, and it writes only what the commit it expects reaches, so a file
 * written early is the one the last pass would write.
 */
export class WorktreeWriter {
  private head: string | undefined;
  /** Trees whose folders are known and that have not come, by id: the folders they fill. */
  private readonly wantedTrees = new Map<string, string[]>();
  /** Blobs whose files are known and that have not come, by id. */
  private readonly wantedBlobs = new Map<string, ListedFile[]>();
  /** Trees that have come, held up to a bound, for a place named after they came. */
  private readonly trees = new Map<string, Buffer>();
  private treeBytes = 0;
  /** Folders being made or made, by path: each is made once its parent is (see makeFolder). */
  private readonly folders = new Map<string, Promise<void>>();
  /** Files handed to a write, by path. */
  private readonly placed = new Set<string>();
  /** Files to write, in order, from `next` on: taking from an array's front one by one would copy the rest each time. */
  private waiting: { file: ListedFile; bytes?: Buffer }[] = [];
  private next = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly batch: ClonedFile[] = [];
  private early = true;
  private failure: { error: unknown } | undefined;
  /** Reads the objects of the work tree's `.git`, once its packs are there (see write). */
  private read: ReadObject | undefined;

  /** `onFiles` and `blobs` as for writeWorktree. */
  constructor(
    private readonly dir: string,
    private readonly options: { onFiles?: (files: ClonedFile[]) => Promise<void>; blobs?: ReadonlyMap<string, Buffer> } = {},
  ) {}

  /** The commit whose files are written: the branch's, named before its pack is asked for. */
  expect(commit: string): void {
    this.head = commit;
  }

  /** An object of the pack, whole and named by its bytes. One that does not read stops the early writing: the last pass meets it and says why. */
  see({ oid, type, data }: { oid: string; type: string; data: Buffer }): void {
    if (!this.early || this.failure) return;
    try {
      if (type === "commit" && oid === this.head) {
        // Placed once: a pack may hold an object twice (git's index-pack takes it), and its files would be written twice.
        this.head = undefined;
        this.wantTree(parseCommit(data, oid).tree, "");
      } else if (type === "tree") {
        if (this.treeBytes + data.length <= MAX_HELD_TREE_BYTES) {
          this.trees.set(oid, data);
          this.treeBytes += data.length;
        }
        const folders = this.wantedTrees.get(oid);
        this.wantedTrees.delete(oid);
        for (const folder of folders ?? []) this.placeTree(oid, data, folder);
      } else if (type === "blob") {
        const files = this.wantedBlobs.get(oid);
        this.wantedBlobs.delete(oid);
        // A blob the clone does not hold (past its bound) waits for a write here only while few others do: behind a
        // slow disk the queue would hold a large tree's blobs, so the last pass reads it from the pack instead.
        if (!this.options.blobs?.has(oid) && this.waiting.length - this.next >= PARALLEL_WRITES) return;
        for (const file of files ?? []) this.enqueue(file, data);
      }
    } catch {
      this.early = false;
    }
  }

  /**
   * Lists the files of `commit` from the packs of the work tree's `.git` (the pack indexed by now) and writes those not
   * written yet, then waits for every write. Returns how many files the commit has, and the folders made. A file
   * written early that the commit does not hold is an error.
   */
  async write(commit: string): Promise<{ files: number; folders: string[] }> {
    this.early = false;
    this.trees.clear();
    this.wantedTrees.clear();
    this.wantedBlobs.clear();
    const objects = new GitObjects(path.join(this.dir, ".git"));
    try {
      const read: ReadObject = async (oid, want) => (want === "blob" ? this.options.blobs?.get(oid) : undefined) ?? objects.readAs(oid, want);
      this.read = read;
      const tree = parseCommit(await read(commit, "commit"), commit).tree;
      const files: ListedFile[] = [];
      const folders: string[] = [];
      await listFiles(tree, read, { folder: "", files, folders, makeFolder: (rel) => this.makeFolder(rel) });
      const listed = new Set(files.map((file) => file.rel));
      for (const rel of this.placed) if (!listed.has(rel)) throw new Error(`wrote ${rel} ahead of commit ${commit}, which does not hold it`);
      for (const file of files) if (!this.placed.has(file.rel)) this.enqueue(file);
      await this.settle();
      if (this.failure) throw this.failure.error;
      // Folders no file was written into (empty ones, submodules') are made too.
      await Promise.all(this.folders.values());
      if (this.options.onFiles && this.batch.length > 0) await this.options.onFiles(this.batch.splice(0));
      return { files: files.length, folders };
    } finally {
      // A pass that failed leaves no write running into a folder its caller removes.
      await this.abandon();
      objects.close();
    }
  }

  /** Stops writing and waits for the writes under way, as a clone that failed must before its folder is removed. */
  async abandon(): Promise<void> {
    this.early = false;
    this.waiting = [];
    this.next = 0;
    await this.settle();
    await Promise.allSettled(this.folders.values());
  }

  private wantTree(oid: string, folder: string): void {
    const held = this.trees.get(oid);
    if (held) this.placeTree(oid, held, folder);
    else addTo(this.wantedTrees, oid, folder);
  }

  private placeTree(oid: string, data: Buffer, folder: string): void {
    for (const { kind, rel, oid: entryOid, mode } of placesIn(data, oid, folder)) {
      if (kind !== "file") {
        this.makeFolder(rel);
        if (kind === "folder") this.wantTree(entryOid, rel);
        continue;
      }
      const file = { rel, oid: entryOid, mode };
      const held = this.options.blobs?.get(entryOid);
      if (held) this.enqueue(file, held);
      else addTo(this.wantedBlobs, entryOid, file);
    }
  }

  /**
   * Makes the folder `rel` once its parent is made, off the main thread (a few hundred folders made one by one took
   * a tenth of a second of it). Its files' writes wait for it.
   */
  private makeFolder(rel: string): void {
    if (this.folders.has(rel)) return;
    const slash = rel.lastIndexOf("/");
    const parent = slash < 0 ? undefined : this.folders.get(rel.slice(0, slash));
    const made = (async () => {
      await parent;
      await fs.promises.mkdir(path.join(this.dir, rel));
    })();
    // Awaited by the folder's writes and by `write`; a folder without files is seen failing there.
    made.catch(() => {});
    this.folders.set(rel, made);
  }

  /** Hands `file` to a write, now or once one of the PARALLEL_WRITES is free; its bytes are `bytes`, or read when it starts. */
  private enqueue(file: ListedFile, bytes?: Buffer): void {
    this.placed.add(file.rel);
    this.waiting.push({ file, ...(bytes && { bytes }) });
    this.pump();
  }

  private pump(): void {
    while (this.running.size < PARALLEL_WRITES && this.next < this.waiting.length && !this.failure) {
      const item = this.waiting[this.next++]!;
      // The files taken are let go of now and then, so that their bytes are not held until the last is written.
      if (this.next >= 1024 && this.next * 2 >= this.waiting.length) {
        this.waiting = this.waiting.slice(this.next);
        this.next = 0;
      }
      const run: Promise<void> = this.writeOne(item.file, item.bytes)
        .catch((error: unknown) => {
          this.failure ??= { error };
        })
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  private async writeOne({ rel, oid, mode }: ListedFile, held: Buffer | undefined): Promise<void> {
    const file = path.join(this.dir, rel);
    const slash = rel.lastIndexOf("/");
    if (slash >= 0) await this.folders.get(rel.slice(0, slash));
    // Only the last pass hands over a file without its bytes, once it has set `read`.
    const blob = held ?? (await this.read!(oid, "blob"));
    const written = writeTreeEntry(file, mode, blob);
    if (mode === LINK) return written;
    const { onFiles } = this.options;
    if (onFiles) this.batch.push({ path: rel, oid, bytes: blob });
    // Both run to their end before the write counts as done, failed or not: nothing of it outlives the clone.
    const [wrote, saw] = await Promise.allSettled([written, onFiles && this.batch.length >= BATCH_FILES ? onFiles(this.batch.splice(0)) : undefined]);
    if (wrote.status === "rejected") throw wrote.reason;
    if (saw.status === "rejected") throw saw.reason;
  }

  /** Resolves once no write is under way or waiting (a failure leaves the waiting ones). */
  private async settle(): Promise<void> {
    // A write that ends starts the next waiting one: the set refills until none waits.
    while (this.running.size > 0) await Promise.all(this.running);
  }
}

/**
 * Writes the files of `commit` into the work tree at `dir` (which holds its `.git`), as a checkout would but
 * without building an index: the bot commits from trees, and the Custodian walks the directory. Objects are
 * read from the clone's pack with Node's zlib (see GitObjects).
 * Executable bits and symbolic links are kept; submodules become empty directories, as git leaves them.
 * `onFiles` is given the regular files in batches as they are written, and runs while their writes are under way.
 * `blobs` are blobs already inflated (by the pack's indexing), by id; the others are read from the packs. A clone
 * that writes files as its pack arrives uses a WorktreeWriter instead.
 * Returns how many files it wrote, and the folders it made.
 */
export async function writeWorktree(
  dir: string,
  commit: string,
  options: { onFiles?: (files: ClonedFile[]) => Promise<void>; blobs?: ReadonlyMap<string, Buffer> } = {},
): Promise<{ files: number; folders: string[] }> {
  return new WorktreeWriter(dir, options).write(commit);
}
