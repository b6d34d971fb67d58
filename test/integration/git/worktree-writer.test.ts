import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { indexPack, packName, type PackObject } from "../../../src/git/pack/index-pack.js";
import { PackArriving } from "../../../src/git/pack/read-arriving-pack.js";
import { WorktreeWriter, type ClonedFile } from "../../../src/git/write-worktree.js";
import { gitEnv } from "../../support/git-server.js";

// One commit with nested folders, one blob at three paths, an executable, a link and a submodule, made by the real git.
let work: string;
let head: string;
let pack: Buffer;
const git = (args: string[], input?: Buffer | string) => execFileSync("git", args, { cwd: work, env: gitEnv(), input, maxBuffer: 64 << 20 });
const folders: string[] = [];

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-writer-"));
  git(["init", "-q", "-b", "main"]);
  const write = (rel: string, text: string, mode = 0o644) => {
    fs.mkdirSync(path.join(work, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(work, rel), text, { mode });
  };
  write("README.md", "# demo\n");
  for (let i = 0; i < 40; i++) write(`pkg/sub${i % 4}/deep/mod${i}.py`, `def f${i}():\n    return ${i}\n`.repeat(20));
  for (const rel of ["pkg/__init__.py", "pkg/sub0/__init__.py", "pkg/sub1/__init__.py"]) write(rel, "# same bytes at three paths\n");
  write("bin/run.sh", "#!/bin/sh\necho hi\n", 0o755);
  fs.symlinkSync("../README.md", path.join(work, "bin/readme-link"));
  git(["add", "-A"]);
  git(["update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},vendor/lib`]);
  git(["commit", "-q", "-m", "one commit"]);
  head = git(["rev-parse", "HEAD"]).toString().trim();
  pack = git(["pack-objects", "--stdout", "-q", "--revs"], "HEAD\n");
  folders.push("bin", "pkg", ...["sub0", "sub1", "sub2", "sub3"].flatMap((sub) => [`pkg/${sub}`, `pkg/${sub}/deep`]), "vendor", "vendor/lib");
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The commit's files as git lists them: path, mode and bytes (a link's target for a link), submodules left out. */
let listed: Map<string, { mode: string; oid: string; bytes: Buffer }> | undefined;
function expectedFiles(): Map<string, { mode: string; oid: string; bytes: Buffer }> {
  if (listed) return listed;
  const files = new Map<string, { mode: string; oid: string; bytes: Buffer }>();
  for (const line of git(["ls-tree", "-r", "HEAD"]).toString().trim().split("\n")) {
    const [meta, rel] = line.split("\t") as [string, string];
    const [mode, type, oid] = meta.split(" ") as [string, string, string];
    if (type === "blob") files.set(rel, { mode, oid, bytes: git(["cat-file", "blob", oid]) });
  }
  return (listed = files);
}

/** A checkout under test: its folder, its writer, the blobs held for it, what onFiles saw, and how an object is shown. */
interface Checkout {
  dir: string;
  writer: WorktreeWriter;
  blobs: Map<string, Buffer>;
  seen: ClonedFile[];
  /** Shows the writer one object of the pack, holding a blob first (unless told not to), as the clone does. */
  show: (object: PackObject) => void;
}

/**
 * Runs `body` on a checkout folder with an empty `.git` to hold the pack and a writer that expects `expected` (the
 * commit, unless told otherwise), then removes the folder, whatever `body` did.
 */
async function withCheckout(body: (checkout: Checkout) => Promise<void>, { expected = head, hold = true } = {}): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-writer-out-"));
  try {
    fs.mkdirSync(path.join(dir, ".git", "objects", "pack"), { recursive: true });
    const blobs = new Map<string, Buffer>();
    const seen: ClonedFile[] = [];
    const writer = new WorktreeWriter(dir, { blobs, onFiles: async (files) => void seen.push(...files) });
    writer.expect(expected);
    const show = (object: PackObject) => {
      if (object.type === "blob" && hold) blobs.set(object.oid, object.data);
      writer.see(object);
    };
    await body({ dir, writer, blobs, seen, show });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Stores `bytes` (the commit's pack by default) in the checkout's `.git`, as the clone does once it all came. */
async function storePack(dir: string, bytes: Buffer = pack): Promise<void> {
  const name = packName(bytes);
  fs.writeFileSync(path.join(dir, ".git", "objects", "pack", `${name}.pack`), bytes);
  fs.writeFileSync(path.join(dir, ".git", "objects", "pack", `${name}.idx`), await indexPack(bytes));
}

/** Stores the pack as the clone does once it all came, lets the writer's last pass run, and checks the work tree. */
async function finishAndCheck(dir: string, writer: WorktreeWriter): Promise<void> {
  await storePack(dir);
  await writer.write(head);
  expectWorkTree(dir);
}

/** Checks the work tree against the commit: every file's bytes and mode, the link, the submodule's empty folder, and nothing else. */
function expectWorkTree(dir: string): void {
  const expected = expectedFiles();
  for (const [rel, { mode, bytes }] of expected) {
    const file = path.join(dir, rel);
    if (mode === "120000") {
      expect(fs.readlinkSync(file)).toBe(bytes.toString("utf8"));
      continue;
    }
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect((fs.statSync(file).mode & 0o111) !== 0).toBe(mode === "100755");
  }
  expect(fs.readdirSync(path.join(dir, "vendor", "lib"))).toEqual([]);
  const onDisk = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((rel) => !rel.startsWith(".git"));
  expect(onDisk.sort()).toEqual([...expected.keys(), ...folders].sort());
}

describe("WorktreeWriter", () => {
  // Without held blobs (a tree past the clone's bound), a blob is written as it comes only while few writes wait.
  it.each([
    ["held", true],
    ["not held", false],
  ])("writes each file while the pack still arrives, and the last pass writes the rest, none twice (blobs %s)", async (_label, hold) => {
    await withCheckout(
      async ({ dir, writer, blobs, seen, show }) => {
        const arriving = new PackArriving(show);
        // All but the pack's end: the server is still sending.
        const cut = pack.length - 400;
        for (let at = 0; at < cut; at += 512) arriving.add(pack.subarray(at, Math.min(at + 512, cut)));
        const written = (rel: string) => fs.existsSync(path.join(dir, rel)) && fs.statSync(path.join(dir, rel)).size > 0;
        const regular = [...expectedFiles()].filter(([, { mode }]) => mode !== "120000").map(([rel]) => rel);
        if (hold) {
          // Held, every file whose blob came is written: most of them, all but the pack's last few objects.
          const came = regular.filter((rel) => blobs.has(expectedFiles().get(rel)!.oid));
          expect(came.length).toBeGreaterThan(regular.length / 2);
          await vi.waitFor(() => expect(came.filter((rel) => !written(rel))).toEqual([]), { timeout: 5_000, interval: 10 });
        } else {
          // Not held, the first ones are, until writes wait.
          await vi.waitFor(() => expect(regular.some(written)).toBe(true), { timeout: 5_000, interval: 10 });
        }
        arriving.add(pack.subarray(cut));
        const index = await arriving.index();
        expect(index.equals(await indexPack(pack))).toBe(true);
        await storePack(dir);
        const result = await writer.write(head);
        const expected = expectedFiles();
        expect(result.files).toBe(expected.size);
        expect([...result.folders].sort()).toEqual([...folders].sort());
        expectWorkTree(dir);
        // onFiles saw each regular file once, links aside, with its blob id and bytes.
        expect(seen.map((file) => file.path).sort()).toEqual([...regular].sort());
        for (const file of seen) expect(file.bytes.equals(expected.get(file.path)!.bytes)).toBe(true);
      },
      { hold },
    );
  });

  it("places trees and blobs that come in any order, and writes nothing a tree outside the commit names", async () => {
    await withCheckout(async ({ dir, writer, seen, show }) => {
      const objects: PackObject[] = [];
      await indexPack(pack, undefined, (object) => objects.push(object));
      // A tree the commit does not reach, naming a file of its own: sent by a server, never written.
      const strayBlob = git(["hash-object", "-w", "--stdin"], "not in the commit\n").toString().trim();
      const strayTree = git(["mktree"], `100644 blob ${strayBlob}\tstray.txt\n`).toString().trim();
      objects.push(
        { oid: strayTree, type: "tree", data: git(["cat-file", "tree", strayTree]) },
        { oid: strayBlob, type: "blob", data: Buffer.from("not in the commit\n") },
      );
      // Blobs first, then the trees in the reverse of git's order (a folder's before its parent's), then the commit:
      // every tree waits for the commit to place it.
      const reversed = (type: string) => objects.filter((object) => object.type === type).reverse();
      for (const object of [...reversed("blob"), ...reversed("tree"), ...reversed("commit")]) show(object);
      await vi.waitFor(() => expect(fs.existsSync(path.join(dir, "pkg", "sub3", "deep", "mod39.py"))).toBe(true), { timeout: 5_000, interval: 10 });
      await finishAndCheck(dir, writer);
      expect(fs.existsSync(path.join(dir, "stray.txt"))).toBe(false);
      expect(seen.length).toBe(expectedFiles().size - 1);
    });
  });

  it("places the commit's tree once when the pack holds the commit twice, as git's index-pack allows", async () => {
    await withCheckout(async ({ dir, writer, show }) => {
      const objects: PackObject[] = [];
      await indexPack(pack, undefined, (object) => objects.push(object));
      const commit = objects.find((object) => object.type === "commit")!;
      for (const object of [commit, ...objects]) show(object);
      await finishAndCheck(dir, writer);
    });
  });

  it("writes a tree of thousands of files, each once, as its queue lets go of the ones taken", async () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), "magis-writer-big-"));
    try {
      const run = (args: string[], input?: string) => execFileSync("git", args, { cwd: big, env: gitEnv(), input, maxBuffer: 64 << 20 });
      run(["init", "-q", "-b", "main"]);
      for (let i = 0; i < 2500; i++) {
        fs.mkdirSync(path.join(big, `d${i % 50}`), { recursive: true });
        fs.writeFileSync(path.join(big, `d${i % 50}`, `f${i}.txt`), `file ${i}\n`);
      }
      run(["add", "-A"]);
      run(["commit", "-q", "-m", "many"]);
      const bigHead = run(["rev-parse", "HEAD"]).toString().trim();
      const bigPack = run(["pack-objects", "--stdout", "-q", "--revs"], "HEAD\n");
      await withCheckout(
        async ({ dir, writer, seen, show }) => {
          await storePack(dir, bigPack);
          await indexPack(bigPack, undefined, show);
          expect((await writer.write(bigHead)).files).toBe(2500);
          expect(new Set(seen.map((file) => file.path)).size).toBe(2500);
          expect(seen).toHaveLength(2500);
          for (const i of [0, 1023, 1024, 2048, 2499]) expect(fs.readFileSync(path.join(dir, `d${i % 50}`, `f${i}.txt`), "utf8")).toBe(`file ${i}\n`);
        },
        { expected: bigHead },
      );
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });

  it("writes nothing early for a commit it was not told to expect, and the last pass writes the whole tree", async () => {
    await withCheckout(
      async ({ dir, writer, show }) => {
        await indexPack(pack, undefined, show);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(fs.readdirSync(dir)).toEqual([".git"]);
        await finishAndCheck(dir, writer);
      },
      { expected: "f".repeat(40) },
    );
  });

  it("stops when abandoned, with no write left running into the folder its clone removes", async () => {
    await withCheckout(async ({ dir, writer, show }) => {
      new PackArriving(show).add(pack.subarray(0, pack.length - 400));
      await writer.abandon();
      // Nothing runs on after it: the folder holds what it held when abandon resolved.
      const listing = () => (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
      const then = listing();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(listing()).toEqual(then);
      fs.rmSync(dir, { recursive: true, force: true });
      expect(fs.existsSync(dir)).toBe(false);
    });
  });
});
