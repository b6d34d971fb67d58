import { execFileSync } from "node:child_process";
import crypto, { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexPack } from "../../../src/git/pack/index-pack.js";
import { BaseCache, inflateAt } from "../../../src/git/pack/pack-entry.js";
import { GatheredPack } from "../../../src/git/pack/gather-pack.js";
import { PackFile } from "../../../src/git/pack/pack-file.js";
import { PackObjects } from "../../../src/git/pack/pack-objects.js";
import { PackArriving } from "../../../src/git/pack/read-arriving-pack.js";
import { gitEnv } from "../../support/git-server.js";

// A repository whose history makes git store most objects as deltas: one long file edited a little in each commit.
let work: string;
const git = (args: string[], input?: Buffer | string) => execFileSync("git", args, { cwd: work, env: gitEnv(), input, maxBuffer: 64 << 20 });

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-pack-"));
  git(["init", "-q", "-b", "main"]);
  const lines = Array.from({ length: 400 }, (_, i) => `def function_${i}(value):\n    return value * ${i}\n`);
  for (let commit = 0; commit < 6; commit++) {
    lines[commit * 50] = `def function_${commit * 50}(value):\n    return value + ${commit}  # changed\n`;
    fs.writeFileSync(path.join(work, "module.py"), lines.join(""));
    fs.writeFileSync(path.join(work, `notes-${commit}.txt`), `note ${commit}\n`.repeat(commit + 1));
    git(["add", "-A"]);
    git(["commit", "-q", "-m", `commit ${commit}`]);
  }
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A pack of every object, as git's pack-objects writes it: with ofs-deltas, or ref-deltas (`--delta-base-offset` off). */
function packOfAll(ofsDeltas: boolean): Buffer {
  const objects = git(["rev-list", "--objects", "--all"]);
  return git(["pack-objects", "--stdout", "-q", "--window=10", "--depth=50", ...(ofsDeltas ? ["--delta-base-offset"] : [])], objects);
}

function countDeltas(pack: Buffer, idx: Buffer): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-verify-"));
  try {
    fs.writeFileSync(path.join(dir, "p.pack"), pack);
    fs.writeFileSync(path.join(dir, "p.idx"), idx);
    const report = execFileSync("git", ["verify-pack", "-v", path.join(dir, "p.idx")], { encoding: "utf8" });
    return report.split("\n").filter((line) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(line)).length;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("indexPack and PackObjects on packs the real git writes", () => {
  it.each([
    ["ofs-deltas", true],
    ["ref-deltas", false],
  ])("with %s: the index is byte for byte git's, and every object reads back as git reads it", async (_label, ofs) => {
    const pack = packOfAll(ofs);
    const packFile = path.join(work, "all.pack");
    fs.writeFileSync(packFile, pack);
    git(["index-pack", "-o", path.join(work, "all.idx"), packFile]);
    const expected = fs.readFileSync(path.join(work, "all.idx"));
    // Each object is shown once as it is named, deltas applied: what a clone writes its work tree from.
    const seen = new Map<string, { type: string; data: Buffer }>();
    const index = await indexPack(pack, undefined, ({ oid, type, data }) => {
      expect(seen.has(oid)).toBe(false);
      seen.set(oid, { type, data });
    });
    expect(index.equals(expected)).toBe(true);
    const listed = git(["rev-list", "--objects", "--all"])
      .toString()
      .split("\n")
      .map((line) => line.slice(0, 40))
      .filter(Boolean);
    expect([...seen.keys()].sort()).toEqual([...new Set(listed)].sort());
    for (const [oid, { type, data }] of seen) {
      expect(type).toBe(git(["cat-file", "-t", oid]).toString().trim());
      expect(data.equals(git(["cat-file", type, oid]))).toBe(true);
    }
    expect(countDeltas(pack, index)).toBeGreaterThan(3);

    // PackObjects reads a repository's packs: put this one in a bare repository of its own.
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "magis-packed-"));
    try {
      fs.mkdirSync(path.join(bare, "objects", "pack"), { recursive: true });
      fs.writeFileSync(path.join(bare, "objects", "pack", "pack-x.pack"), pack);
      fs.writeFileSync(path.join(bare, "objects", "pack", "pack-x.idx"), index);
      const objects = new PackObjects(bare);
      const ids = git(["rev-list", "--objects", "--all"])
        .toString()
        .split("\n")
        .map((line) => line.slice(0, 40))
        .filter(Boolean);
      expect(ids.length).toBeGreaterThan(15);
      for (const oid of ids) {
        const object = objects.read(oid)!;
        expect(object.type).toBe(git(["cat-file", "-t", oid]).toString().trim());
        expect(object.data.equals(git(["cat-file", object.type, oid]))).toBe(true);
      }
      expect(objects.read("0".repeat(40))).toBeNull();
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it("refuses a pack whose bytes do not match its checksum, and one whose entry is damaged under a good checksum", async () => {
    const pack = packOfAll(true);
    const flipped = Buffer.from(pack);
    flipped[40] = flipped[40]! ^ 0xff;
    await expect(indexPack(flipped)).rejects.toThrow("corrupt pack: its checksum does not match its bytes");
    // The same damage with the checksum made to fit: the entry itself no longer inflates to its size.
    createHash("sha1")
      .update(flipped.subarray(0, flipped.length - 20))
      .digest()
      .copy(flipped, flipped.length - 20);
    await expect(indexPack(flipped)).rejects.toThrow(/^corrupt pack: /);
    await expect(indexPack(Buffer.from("not a pack at all, just some text here"))).rejects.toThrow("corrupt pack: it does not start with 'PACK'");
  });
});

/** Hands `pack` to a PackArriving in parts of the given sizes, in turn (the last part takes what is left). */
function arriveInParts(arriving: PackArriving, pack: Buffer, sizes: number[]): void {
  for (let at = 0, i = 0; at < pack.length; i++) {
    const size = sizes[i % sizes.length]!;
    arriving.add(pack.subarray(at, at + size));
    at += size;
  }
}

describe("PackArriving: a pack read as it arrives", () => {
  it.each([
    ["ofs-deltas", true],
    ["ref-deltas", false],
  ])("with %s, in parts of any size: git's index, and every object shown once, the whole ones before the last byte is read", async (_label, ofs) => {
    const pack = packOfAll(ofs);
    const expected = await indexPack(pack);
    for (const sizes of [[1], [7, 3, 1000], [100], [65536], [pack.length]]) {
      const seen: string[] = [];
      const arriving = new PackArriving(({ oid }) => seen.push(oid));
      arriveInParts(arriving, pack, sizes);
      // Whole objects were named while the parts came, all but the last few (they wait for the checksum's room).
      const early = seen.length;
      if (sizes[0]! < pack.length) expect(early).toBeGreaterThan(5);
      expect((await arriving.index()).equals(expected)).toBe(true);
      expect((arriving.pack() as Buffer).equals(pack)).toBe(true);
      expect((arriving.pack() as Buffer).buffer.byteLength).toBeLessThanOrEqual(Math.max(8192, pack.length * 1.25));
      expect(seen.length).toBe(new Set(seen).size);
      expect(seen.length).toBe(git(["rev-list", "--objects", "--all"]).toString().trim().split("\n").length);
    }
  });

  it("refuses, once all came, a pack damaged anywhere, cut short, or followed by more bytes, as indexPack does", async () => {
    const pack = packOfAll(true);
    const refused = async (bytes: Buffer) => {
      const arriving = new PackArriving();
      arriveInParts(arriving, bytes, [333]);
      return arriving.index().then(
        () => "indexed",
        (error: Error) => error.message,
      );
    };
    const flipped = Buffer.from(pack);
    flipped[Math.floor(pack.length / 2)]! ^= 0xff;
    expect(await refused(flipped)).toBe("corrupt pack: its checksum does not match its bytes");
    createHash("sha1")
      .update(flipped.subarray(0, flipped.length - 20))
      .digest()
      .copy(flipped, flipped.length - 20);
    expect(await refused(flipped)).toMatch(/^corrupt pack: /);
    expect(await refused(pack.subarray(0, pack.length - 100))).toMatch(/^corrupt pack: /);
    const longer = Buffer.concat([pack.subarray(0, pack.length - 20), Buffer.from("extra")]);
    expect(await refused(Buffer.concat([longer, createHash("sha1").update(longer).digest()]))).toBe("corrupt pack: bytes follow its last object");
    expect(await refused(Buffer.from("not a pack at all, just some text here"))).toBe("corrupt pack: it does not start with 'PACK'");
  });
});

describe("PackArriving past its memory bound", () => {
  it.each([
    ["ofs-deltas", true],
    ["ref-deltas", false],
  ])("with %s: writes the pack to its file as it comes, holds little more than the bytes not read yet, and indexes it as git does", async (_label, ofs) => {
    // Incompressible files, so that the pack is many times the bound.
    const big = fs.mkdtempSync(path.join(os.tmpdir(), "magis-pack-spill-"));
    try {
      const run = (args: string[], input?: string) => execFileSync("git", args, { cwd: big, env: gitEnv(), input, maxBuffer: 64 << 20 });
      run(["init", "-q", "-b", "main"]);
      for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(big, `f${i}.bin`), crypto.randomBytes(5_000));
      fs.copyFileSync(path.join(work, "module.py"), path.join(big, "module.py"));
      run(["add", "-A"]);
      run(["commit", "-q", "-m", "files"]);
      fs.appendFileSync(path.join(big, "module.py"), "# changed\n");
      run(["commit", "-q", "-am", "changed"]);
      const objects = run(["rev-list", "--objects", "--all"]).toString();
      const pack = run(["pack-objects", "--stdout", "-q", ...(ofs ? ["--delta-base-offset"] : [])], objects);
      const expected = await indexPack(pack);
      const bound = 16 * 1024;
      expect(pack.length).toBeGreaterThan(10 * bound);
      for (const sizes of [[1_000], [7, 3, 4_096], [60_000]]) {
        const file = path.join(big, `incoming-${sizes.join("-")}`);
        const seen: string[] = [];
        const arriving = new PackArriving(({ oid }) => seen.push(oid), { file, memoryBytes: bound });
        let held = 0;
        for (let at = 0, i = 0; at < pack.length; i++) {
          const size = sizes[i % sizes.length]!;
          arriving.add(pack.subarray(at, at + size));
          at += size;
          held = Math.max(held, arriving.held);
        }
        expect(held).toBeLessThanOrEqual(2 * Math.max(bound, Math.max(...sizes)) + 16 * 1024);
        expect(fs.readFileSync(file).equals(pack)).toBe(true);
        expect((await arriving.index()).equals(expected)).toBe(true);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.length).toBe(objects.trim().split("\n").length);
        const stored = arriving.pack();
        expect(stored).toBeInstanceOf(PackFile);
        (stored as PackFile).close();
      }
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});

describe("GatheredPack past its memory bound", () => {
  it("writes a pack no one reads as it arrives to its file, and keeps none of it in memory once there", () => {
    const pack = Buffer.concat([Buffer.from("PACK"), crypto.randomBytes(200_000)]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-gathered-"));
    try {
      const gathered = new GatheredPack({ file: path.join(dir, "incoming"), memoryBytes: 16 * 1024 });
      let held = 0;
      for (let at = 0; at < pack.length; at += 1_000) {
        gathered.add(pack.subarray(at, at + 1_000));
        held = Math.max(held, gathered.held);
      }
      expect(held).toBeLessThanOrEqual(32 * 1024);
      const stored = gathered.pack() as PackFile;
      expect(stored).toBeInstanceOf(PackFile);
      expect(stored.read(0, pack.length).equals(pack)).toBe(true);
      stored.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("inflateAt", () => {
  it("gives an object a buffer of about its own size, so that holding thousands of small ones costs what they weigh", () => {
    for (const size of [5_000, 12_000]) {
      const data = Buffer.alloc(size, 0x61);
      const inflated = inflateAt(Buffer.concat([Buffer.from([1, 2, 3]), zlib.deflateSync(data)]), 3, size);
      expect(inflated.data.equals(data)).toBe(true);
      // zlib's own pieces are 16 KB: each such object would hold one.
      expect(inflated.data.buffer.byteLength).toBeLessThan(size + 1024);
    }
  });
});

describe("BaseCache", () => {
  const object = (bytes: number) => ({ data: Buffer.alloc(bytes) });

  it("keeps objects up to its bound, starts over when full, and never keeps one over a quarter of it", () => {
    const cache = new BaseCache(100);
    for (const [key, bytes] of [
      [1, 20],
      [2, 25],
      [3, 25],
      [4, 25],
    ] as const)
      cache.set(key, object(bytes));
    expect([1, 2, 3, 4].every((key) => cache.get(key) !== undefined)).toBe(true);
    cache.set(5, object(10));
    expect([1, 2, 3, 4, 5].map((key) => cache.get(key) !== undefined)).toEqual([false, false, false, false, true]);
    cache.set(6, object(26));
    expect(cache.get(6)).toBeUndefined();
  });
});
