import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexPack } from "../../../src/git/pack/index-pack.js";
import { PackArriving } from "../../../src/git/pack/read-arriving-pack.js";
import { gitEnv } from "../../support/git-server.js";

// Packs written byte by byte: git's pack-objects always puts a delta's base first, which a pack need not.
let bare: string;
const git = (args: string[]) => execFileSync("git", args, { cwd: bare, env: gitEnv(), maxBuffer: 16 << 20 });

beforeEach(() => {
  bare = fs.mkdtempSync(path.join(os.tmpdir(), "magis-delta-order-"));
  git(["init", "-q", "--bare"]);
});
afterEach(() => fs.rmSync(bare, { recursive: true, force: true }));

const blobId = (data: Buffer) => createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");

/** A size in a delta's header: seven bits a byte, low first. */
function deltaSize(size: number): number[] {
  const bytes: number[] = [];
  do {
    bytes.push((size & 0x7f) | (size >= 0x80 ? 0x80 : 0));
    size >>>= 7;
  } while (size > 0);
  return bytes;
}

/** A delta that copies the whole of `base` and adds `extra` (under 128 bytes) after it. */
function appendDelta(base: Buffer, extra: Buffer): Buffer {
  const copy = [0x80 | 0x10 | 0x20, base.length & 0xff, base.length >> 8];
  return Buffer.from([...deltaSize(base.length), ...deltaSize(base.length + extra.length), ...copy, extra.length, ...extra]);
}

/** An entry's header: the type in bits 4–6 of the first byte, the size in groups of 7 bits, low first. */
function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  for (let rest = size >>> 4; rest > 0; rest >>>= 7) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
  }
  return Buffer.from(bytes);
}

type Entry = { blob: Buffer } | { delta: Buffer; on: string };

/** A version-2 pack of `entries`: whole blobs, and ref-deltas naming their base by id. */
function packOf(entries: Entry[]): Buffer {
  const parts = entries.map((entry) =>
    "blob" in entry
      ? Buffer.concat([entryHeader(3, entry.blob.length), zlib.deflateSync(entry.blob)])
      : Buffer.concat([entryHeader(7, entry.delta.length), Buffer.from(entry.on, "hex"), zlib.deflateSync(entry.delta)]),
  );
  const head = Buffer.from("PACK\0\0\0\x02\0\0\0\0", "latin1");
  head.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([head, ...parts]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

describe("a ref-delta whose base comes later in the pack", () => {
  it("is resolved, as git's index-pack resolves it: the same index byte for byte, the same objects", async () => {
    const first = Buffer.from("the base text, whole, at the end of the pack\n".repeat(3));
    const second = Buffer.concat([first, Buffer.from("a second line\n")]);
    const third = Buffer.concat([second, Buffer.from("a third line\n")]);
    const lone = Buffer.from("another whole blob, also after its delta\n");
    const pack = packOf([
      // Based on a delta that comes after it, itself based on a whole blob that comes last.
      { delta: appendDelta(second, Buffer.from("a third line\n")), on: blobId(second) },
      { delta: appendDelta(lone, Buffer.from("!\n")), on: blobId(lone) },
      { delta: appendDelta(first, Buffer.from("a second line\n")), on: blobId(first) },
      { blob: first },
      { blob: lone },
    ]);
    const file = path.join(bare, "objects", "pack", "pack-order.pack");
    fs.writeFileSync(file, pack);
    git(["index-pack", file]);
    const expected = fs.readFileSync(file.replace(/\.pack$/, ".idx"));

    const seen = new Map<string, Buffer>();
    const index = await indexPack(pack, undefined, ({ oid, type, data }) => {
      expect(type).toBe("blob");
      seen.set(oid, data);
    });
    expect(index.equals(expected)).toBe(true);
    expect([...seen.keys()].sort()).toEqual([first, second, third, lone, Buffer.concat([lone, Buffer.from("!\n")])].map(blobId).sort());
    for (const [oid, data] of seen) expect(data.equals(git(["cat-file", "blob", oid]))).toBe(true);

    // Read as it arrives, the same.
    const arriving = new PackArriving();
    for (let at = 0; at < pack.length; at += 50) arriving.add(pack.subarray(at, at + 50));
    expect((await arriving.index()).equals(expected)).toBe(true);
  });

  it("is still refused when no entry of the pack is its base", async () => {
    const base = Buffer.from("a base that is not in the pack\n");
    const pack = packOf([{ blob: Buffer.from("whole\n") }, { delta: appendDelta(base, Buffer.from("more\n")), on: blobId(base) }]);
    await expect(indexPack(pack)).rejects.toThrow(/^corrupt pack: the delta at byte \d+ names a base the pack does not hold$/);
  });
});
