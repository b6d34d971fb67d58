import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { PackObjects, type PackedObject } from "./pack/pack-objects.js";
import { parseCommit, type ParsedCommit } from "./pack/parse-commit.js";
import { parseTree, type TreeEntry } from "./pack/parse-tree.js";

/**
 * The objects of a repository's git directory (a clone's `.git`, a bare mirror), read by id: from its packs (see
 * PackObjects), else stored loose. Commits and trees are read by the one parser of each (parseCommit, parseTree).
 * The packs are listed when first read from; their files stay open until `close`.
 */
export class GitObjects {
  private packs: PackObjects | undefined;

  constructor(readonly gitDir: string) {}

  /** The object `oid`, or null when the repository does not hold it (a mirror may leave its largest blobs out). */
  read(oid: string): PackedObject | null {
    this.packs ??= new PackObjects(this.gitDir);
    return this.packs.read(oid) ?? this.readLoose(oid);
  }

  /** The bytes of the object `oid`, which must be a `want`; throws when it is missing or another kind. */
  readAs(oid: string, want: PackedObject["type"]): Buffer {
    const object = this.read(oid);
    if (!object) throw new Error(`the ${want} ${oid} is not in ${this.gitDir}: the clone or mirror is incomplete; make it again`);
    if (object.type !== want) throw new Error(`object ${oid} is a ${object.type}, not the ${want} its parent names`);
    return object.data;
  }

  /** The commit `oid`, parsed. */
  readCommit(oid: string): ParsedCommit {
    return parseCommit(this.readAs(oid, "commit"), oid);
  }

  /** The entries of the tree `oid`, in the order it holds them. */
  readTree(oid: string): TreeEntry[] {
    return parseTree(this.readAs(oid, "tree"), oid);
  }

  /** The bytes of the blob `oid`. */
  readBlob(oid: string): Buffer {
    return this.readAs(oid, "blob");
  }

  /** Closes the packs' files. */
  close(): void {
    this.packs?.close();
    this.packs = undefined;
  }

  /** An object stored loose: `objects/<2 hex>/<38 hex>`, zlib over `<type> <size>\0` and the bytes; null when there is none. */
  private readLoose(oid: string): PackedObject | null {
    let stored: Buffer;
    try {
      stored = fs.readFileSync(path.join(this.gitDir, "objects", oid.slice(0, 2), oid.slice(2)));
    } catch {
      return null;
    }
    const whole = zlib.inflateSync(stored);
    const nul = whole.indexOf(0);
    const [type, size] = whole.toString("latin1", 0, nul === -1 ? 0 : nul).split(" ");
    const data = whole.subarray(nul + 1);
    if (nul === -1 || !["commit", "tree", "blob", "tag"].includes(type!) || Number(size) !== data.length) {
      throw new Error(`corrupt object ${oid} in ${this.gitDir}: its header does not say its kind and size`);
    }
    return { type: type as PackedObject["type"], data };
  }
}
