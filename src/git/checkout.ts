import path from "node:path";
import type { FetchedHistory } from "./fetch-recent-history.js";
import { gitBlobId } from "./git-object-id.js";
import { diffTrees, type DiffLimits } from "./pack/diff-trees.js";
import type { ParsedCommit } from "./pack/parse-commit.js";
import type { TreeEntry } from "./pack/parse-tree.js";
import { readFileEntries, type FileEntry } from "./read-file-entries.js";
import { GitObjects } from "./read-git-objects.js";
import { writeFilesAt } from "./write-files-at.js";

/** What a checkout is made of: its folder, and the branch and commit it holds. */
export interface CheckoutOptions {
  dir: string;
  branch: string;
  head: string;
  /** The branch's recent commits, when the clone was asked for them; never rejects (see FetchedHistory). */
  history?: Promise<FetchedHistory>;
}

/**
 * A shallow checkout of one branch (see withShallowClone), and the one way the rest of MAGIS reads git: the commit it
 * is at, the trees and blobs of its `.git` (read by the one tree and commit parsers), blob ids, the difference of two
 * trees, the entries of paths (for a commit on top of it), and its files written on demand. Reads are synchronous:
 * objects come from the pack files a range at a time.
 */
export class Checkout {
  readonly dir: string;
  readonly branch: string;
  /** The commit the checkout is at. */
  readonly head: string;
  // Declared, not defined: a checkout made without a history has no such property at all.
  declare readonly history?: Promise<FetchedHistory>;
  private readonly objects: GitObjects;

  constructor(options: CheckoutOptions) {
    this.dir = options.dir;
    this.branch = options.branch;
    this.head = options.head;
    if (options.history) this.history = options.history;
    this.objects = new GitObjects(path.join(options.dir, ".git"));
  }

  /** The commit `oid` (the head by default), parsed. */
  readCommit(oid = this.head): ParsedCommit {
    return this.objects.readCommit(oid);
  }

  /** The entries of the tree `oid`; names as their bytes (see TreeEntry, entryName). */
  readTree(oid: string): TreeEntry[] {
    return this.objects.readTree(oid);
  }

  /** The bytes of the blob `oid`. */
  readBlob(oid: string): Buffer {
    return this.objects.readBlob(oid);
  }

  /** The id git gives these bytes as a blob: whether a file changed, without git. */
  blobId(bytes: Uint8Array): string {
    return gitBlobId(bytes);
  }

  /** The files that differ between two trees of the checkout (see diffTrees); undefined past `limits`. */
  diffTrees(from: string | undefined, to: string | undefined, limits?: Partial<DiffLimits>): string[] | undefined {
    return diffTrees(
      (oid) => {
        const object = this.objects.read(oid);
        return object?.type === "tree" ? object.data : undefined;
      },
      from,
      to,
      limits,
    );
  }

  /** The regular file at each path of `tree` (the head's by default), or null where there is none; refuses links, folders, submodules (see readFileEntries). */
  fileEntries(paths: string[], tree = this.readCommit().tree): Map<string, FileEntry | null> {
    return readFileEntries(this.objects, tree, paths);
  }

  /** Writes these files of the head commit into the work tree, for a checkout cloned without them; returns the paths written (see writeFilesAt). */
  writeFiles(paths: readonly string[]): Promise<string[]> {
    return writeFilesAt(this.objects, this.dir, this.head, paths);
  }

  /** Closes the pack files its reads opened (the clone does, before it removes the checkout). */
  close(): void {
    this.objects.close();
  }
}
