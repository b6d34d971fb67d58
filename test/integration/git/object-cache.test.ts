import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { keptHistory } from "../../../src/git/kept-history.js";
import {
  cachedObjects,
  evict,
  folderOf,
  HISTORY_MANIFEST,
  KEPT_HISTORY,
  keepObjects,
  objectCacheFrom,
  type ObjectCache,
} from "../../../src/git/object-cache.js";
import { addCommit, createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const token = "ghs_objectcachetoken123456";
const author = { name: "Ada", email: "ada@example.com" };
let root: string;
let server: GitServer;

// Thirty files in a few folders, so that a commit changing one of them is a small part of the tree.
const seed = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`pkg${i % 3}/mod${i}.py`, `def f${i}():\n    return ${i}\n`]));

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-objects-"));
  server = await startGitServer(root, { token });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

let repos = 0;
/** A repository of its own, the remote that clones it and an empty cache. */
function fixture(): { name: string; remote: GitRemote; cache: ObjectCache } {
  const name = `octo/cache${++repos}`;
  createBareRepository(root, name, seed);
  return { name, remote: { url: `${server.url}/${name}.git`, token }, cache: { dir: path.join(root, `cache${repos}`), maxBytes: 2 ** 30, maxPacks: 16 } };
}

/** Every file of the branch as git has it, path to content. */
function filesOf(name: string, ref = "main"): Record<string, string> {
  const paths = server.git(name, "ls-tree", "-r", "--name-only", ref).split("\n");
  return Object.fromEntries(paths.map((p) => [p, server.git(name, "show", `${ref}:${p}`)]));
}

/** The checkout's files (outside .git), path to content, trimmed as `git show` output is. */
function filesIn(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (child === ".git") continue;
      if (entry.isDirectory()) walk(child);
      else files[child] = fs.readFileSync(path.join(dir, child), "utf8").trim();
    }
  };
  walk("");
  return files;
}

/** How many objects each pack of a checkout holds, by pack name. */
function packCounts(dir: string): number[] {
  const folder = path.join(dir, ".git", "objects", "pack");
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".pack"))
    .map((name) => fs.readFileSync(path.join(folder, name)).readUInt32BE(8));
}

const packRequests = () => server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/git-upload-pack")).length;

async function clone(remote: GitRemote, cache: ObjectCache | undefined): Promise<{ files: Record<string, string>; packs: number[] }> {
  return withShallowClone(remote, "main", async ({ dir }) => ({ files: filesIn(dir), packs: packCounts(dir) }), { objects: cache });
}

describe("clones that keep their objects for the next clone", () => {
  it("fetches only what a new commit adds to the kept objects, and checks out every file", async () => {
    const { name, remote, cache } = fixture();
    const first = await clone(remote, cache);
    expect(first.files).toEqual(filesOf(name));
    expect(first.packs).toHaveLength(1);
    expect(cachedObjects(cache, remote.url)?.head).toBe(server.git(name, "rev-parse", "main"));

    addCommit(root, name, {
      branch: "main",
      files: { "pkg1/mod4.py": "def f4():\n    return 40\n", "pkg0/new.py": "NEW = 1\n" },
      message: "change one, add one",
      author,
    });
    const second = await clone(remote, cache);
    expect(second.files).toEqual(filesOf(name));
    // The kept pack, and one holding the commit, the root tree, two folders' trees and two blobs, with the old
    // objects the server sent their deltas against, made whole.
    const [added, kept] = second.packs.sort((a, b) => a - b);
    expect(kept).toBe(first.packs[0]);
    expect(added).toBeGreaterThanOrEqual(6);
    expect(added).toBeLessThanOrEqual(6 + 4);
    const cached = cachedObjects(cache, remote.url)!;
    expect(cached.head).toBe(server.git(name, "rev-parse", "main"));
    expect(cached.packs).toHaveLength(2);
    expect(fs.statSync(cache.dir).mode & 0o077).toBe(0);
    expect(fs.statSync(cached.folder).mode & 0o077).toBe(0);
    // git itself reads each kept pack on its own: none needs another's objects.
    for (const pack of cached.packs) execFileSync("git", ["verify-pack", path.join(cached.folder, `${pack}.idx`)], { env: gitEnv() });
  });

  it("fetches a file that a commit brings back from before the kept commit", async () => {
    const { name, remote, cache } = fixture();
    addCommit(root, name, { branch: "main", files: { "pkg2/mod2.py": "" }, message: "empty mod2", author });
    await clone(remote, cache);
    // mod2's first content is in the history before the kept commit, not in its tree: the server must send it.
    addCommit(root, name, { branch: "main", files: { "pkg2/mod2.py": seed["pkg2/mod2.py"]! }, message: "restore mod2", author });
    const again = await clone(remote, cache);
    expect(again.files).toEqual(filesOf(name));
    expect(again.files["pkg2/mod2.py"]).toBe(seed["pkg2/mod2.py"]!.trim());
  });

  it("asks for no pack when the branch has not moved", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    const before = packRequests();
    const again = await clone(remote, cache);
    expect(packRequests()).toBe(before);
    expect(again.files).toEqual(filesOf(name));
  });

  it("checks out a branch whose history was rewritten", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    // A force push to a commit that shares no history with the kept one.
    const orphan = server.git(name, "commit-tree", server.git(name, "write-tree"), "-m", "orphan");
    expect(orphan).toMatch(/^[0-9a-f]{40}$/);
    server.git(name, "update-ref", "refs/heads/main", orphan);
    const again = await clone(remote, cache);
    expect(again.files).toEqual({});
    expect(cachedObjects(cache, remote.url)?.head).toBe(orphan);
  });

  it("fetches the whole tree again, and keeps it, when a kept pack is damaged or gone", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    const folder = cachedObjects(cache, remote.url)!.folder;
    const pack = fs.readdirSync(folder).find((file) => file.endsWith(".pack"))!;
    const bytes = fs.readFileSync(path.join(folder, pack));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 30) ^ 0xff, bytes.length - 30);
    fs.writeFileSync(path.join(folder, pack), bytes);
    addCommit(root, name, { branch: "main", files: { "pkg0/mod0.py": "changed\n" }, message: "change", author });
    const again = await clone(remote, cache);
    expect(again.files).toEqual(filesOf(name));
    expect(again.packs).toHaveLength(1);
    expect(cachedObjects(cache, remote.url)?.packs).toHaveLength(1);

    fs.rmSync(
      path.join(
        folder,
        fs.readdirSync(folder).find((file) => file.endsWith(".pack"))!,
      ),
    );
    expect(cachedObjects(cache, remote.url)).toBeNull();
    expect((await clone(remote, cache)).files).toEqual(filesOf(name));
    expect(cachedObjects(cache, remote.url)?.packs).toHaveLength(1);
  });

  it("starts over from the whole tree once a repository has gathered its most packs", async () => {
    const { name, remote, cache } = fixture();
    const small = { ...cache, maxPacks: 2 };
    await clone(remote, small);
    for (const round of [1, 2]) {
      addCommit(root, name, { branch: "main", files: { "pkg0/mod0.py": `round ${round}\n` }, message: `round ${round}`, author });
      await clone(remote, small);
    }
    // Two packs kept after the first change; the third clone found three, more than it keeps, and fetched the whole tree.
    expect(cachedObjects(small, remote.url)).toBeNull();
    addCommit(root, name, { branch: "main", files: { "pkg0/mod0.py": "round 3\n" }, message: "round 3", author });
    const after = await clone(remote, small);
    expect(after.packs).toHaveLength(1);
    expect(after.files).toEqual(filesOf(name));
    expect(cachedObjects(small, remote.url)?.packs).toHaveLength(1);
  });

  it("falls back to the whole tree, and keeps it, when the kept packs do not hold what their manifest says", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    addCommit(root, name, { branch: "main", files: { "pkg1/mod1.py": "one\n" }, message: "one", author });
    await clone(remote, cache);
    // The manifest names the newer commit but only the first pack, as if the second had been lost.
    const kept = cachedObjects(cache, remote.url)!;
    expect(kept.packs).toHaveLength(2);
    const whole = kept.packs.reduce((a, b) =>
      fs.statSync(path.join(kept.folder, `${a}.pack`)).size >= fs.statSync(path.join(kept.folder, `${b}.pack`)).size ? a : b,
    );
    fs.writeFileSync(path.join(kept.folder, "head"), `${kept.head}\n${whole}\n`);
    addCommit(root, name, { branch: "main", files: { "pkg2/mod2.py": "two\n" }, message: "two", author });
    const again = await clone(remote, cache);
    expect(again.files).toEqual(filesOf(name));
    expect(again.packs).toHaveLength(1);
    expect(cachedObjects(cache, remote.url)?.packs).toHaveLength(1);
  });

  it("keeps no pack whose base packs another clone removed meanwhile", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    const before = cachedObjects(cache, remote.url)!;
    // While a clone fetches on top of the kept packs, another clone's whole tree replaces them.
    fs.rmSync(path.join(before.folder, `${before.packs[0]}.pack`));
    addCommit(root, name, { branch: "main", files: { "pkg0/mod3.py": "three\n" }, message: "three", author });
    keepObjects(cache, {
      url: remote.url,
      head: server.git(name, "rev-parse", "main"),
      pack: { name: `pack-${"0".repeat(40)}`, pack: Buffer.from("x"), index: Buffer.from("y") },
      on: before,
    });
    expect(fs.existsSync(path.join(before.folder, `pack-${"0".repeat(40)}.pack`))).toBe(false);
    expect(cachedObjects(cache, remote.url)).toBeNull();
  });

  it("uses no cache folder that others may enter", async () => {
    const { name, remote, cache } = fixture();
    await clone(remote, cache);
    fs.chmodSync(cache.dir, 0o755);
    expect(cachedObjects(cache, remote.url)).toBeNull();
    addCommit(root, name, { branch: "main", files: { "pkg0/mod6.py": "six\n" }, message: "six", author });
    const again = await clone(remote, cache);
    expect(again.files).toEqual(filesOf(name));
    expect(again.packs).toHaveLength(1);
    fs.chmodSync(cache.dir, 0o700);

    const linked = { ...cache, dir: path.join(root, `linked${repos}`) };
    fs.symlinkSync(cache.dir, linked.dir);
    expect(cachedObjects(linked, remote.url)).toBeNull();
  });

  it("keeps within its bytes, removing the repository used longest ago", async () => {
    const a = fixture();
    const b = fixture();
    const shared = { ...a.cache, dir: path.join(root, "shared-cache") };
    await clone(a.remote, shared);
    // Its packs and manifest: the kept work tree beside them is smaller.
    const folder = cachedObjects(shared, a.remote.url)!.folder;
    const one = fs
      .readdirSync(folder)
      .map((f) => fs.statSync(path.join(folder, f)))
      .reduce((sum, stat) => sum + (stat.isFile() ? stat.size : 0), 0);
    const tight = { ...shared, maxBytes: one + one / 2 };
    await clone(b.remote, tight);
    expect(cachedObjects(tight, a.remote.url)).toBeNull();
    expect(cachedObjects(tight, b.remote.url)).not.toBeNull();
  });

  it("evicts in its turn a folder that a killed job left without a manifest", async () => {
    const a = fixture();
    const shared = { ...a.cache, dir: path.join(root, "cache-with-leftover") };
    // A pack a killed job wrote before its manifest, an hour ago.
    const leftover = path.join(shared.dir, "0".repeat(32));
    fs.mkdirSync(leftover, { recursive: true, mode: 0o700 });
    fs.chmodSync(shared.dir, 0o700);
    fs.writeFileSync(path.join(leftover, `pack-${"1".repeat(40)}.pack`), Buffer.alloc(2 ** 20));
    const anHourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(leftover, anHourAgo, anHourAgo);
    await clone(a.remote, { ...shared, maxBytes: 2 ** 19 });
    expect(fs.existsSync(leftover)).toBe(false);
    expect(cachedObjects(shared, a.remote.url)).not.toBeNull();
  });
});

/** Makes the repository's kept objects and history look last used `days` ago. */
function lastUsedDaysAgo(cache: ObjectCache, url: string, days: number): void {
  const then = new Date(Date.now() - days * 24 * 3600 * 1000);
  const folder = folderOf(cache, url);
  for (const file of [path.join(folder, "head"), path.join(folder, KEPT_HISTORY, HISTORY_MANIFEST)]) if (fs.existsSync(file)) fs.utimesSync(file, then, then);
}

describe("kept objects that no job used for a while", () => {
  it("are removed, history and all, when older than the cache's age; the others stay, and the count says how many went", async () => {
    const a = fixture();
    const b = fixture();
    const shared = { ...a.cache, dir: path.join(root, "aging-cache"), maxAgeMs: 14 * 24 * 3600 * 1000 };
    // The history needs the server to filter out contents, as GitHub does.
    execFileSync("git", ["config", "uploadpack.allowFilter", "true"], { cwd: path.join(root, `${a.name}.git`), stdio: "pipe" });
    const history = await withShallowClone(a.remote, "main", async (checkout) => checkout.history!, {
      objects: shared,
      history: { months: 12, maxCommits: 100 },
    });
    expect(history.skipped).toBeUndefined();
    await clone(b.remote, shared);
    expect(keptHistory(shared, a.remote.url)).not.toBeNull();
    lastUsedDaysAgo(shared, a.remote.url, 15);
    lastUsedDaysAgo(shared, b.remote.url, 13);

    expect(evict(shared)).toBe(1);
    expect(fs.existsSync(folderOf(shared, a.remote.url))).toBe(false);
    expect(keptHistory(shared, a.remote.url)).toBeNull();
    expect(cachedObjects(shared, b.remote.url)).not.toBeNull();
    // Without an age, only the bytes bound removes anything.
    lastUsedDaysAgo(shared, b.remote.url, 400);
    expect(evict({ ...shared, maxAgeMs: undefined })).toBe(0);
    expect(cachedObjects(shared, b.remote.url)).not.toBeNull();
  });

  it("are removed by the next clone's keep too, whichever repository it clones", async () => {
    const a = fixture();
    const b = fixture();
    const shared = { ...a.cache, dir: path.join(root, "aging-on-keep"), maxAgeMs: 24 * 3600 * 1000 };
    await clone(a.remote, shared);
    lastUsedDaysAgo(shared, a.remote.url, 2);
    await clone(b.remote, shared);
    expect(cachedObjects(shared, a.remote.url)).toBeNull();
    expect(cachedObjects(shared, b.remote.url)).not.toBeNull();
  });

  it("are not looked for in a cache folder that does not exist yet, nor in one others may enter", () => {
    const missing = { dir: path.join(root, "never-made"), maxBytes: 0, maxPacks: 16, maxAgeMs: 1 };
    expect(evict(missing)).toBe(0);
    expect(fs.existsSync(missing.dir)).toBe(false);
    const open = { ...missing, dir: path.join(root, "open-cache") };
    fs.mkdirSync(path.join(open.dir, "0".repeat(32)), { recursive: true });
    fs.chmodSync(open.dir, 0o755);
    expect(evict(open)).toBe(0);
    expect(fs.existsSync(path.join(open.dir, "0".repeat(32)))).toBe(true);
  });
});

describe("objectCacheFrom", () => {
  it("keeps 1,024 MB under the work folder unless told otherwise, none at 0, and refuses what is not a whole number", () => {
    expect(objectCacheFrom(readSettings({}, { door: "serve" }).git, "/work")).toEqual({
      dir: path.join("/work", `magis-objects-${process.getuid!()}`),
      maxBytes: 1024 * 2 ** 20,
      maxPacks: 16,
      maxAgeMs: 14 * 24 * 3600 * 1000,
    });
    expect(objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_MB: "0" }, { door: "serve" }).git, "/work")).toBeUndefined();
    expect(objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_MB: "64" }, { door: "serve" }).git, "/work")?.maxBytes).toBe(64 * 2 ** 20);
    expect(() => objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_MB: "lots" }, { door: "serve" }).git, "/work")).toThrow(
      "MAGIS_OBJECT_CACHE_MB is 'lots': set it to the megabytes",
    );
  });

  it("ages kept objects out after 14 days unless MAGIS_OBJECT_CACHE_DAYS says otherwise, and refuses what is not a whole number of days", () => {
    expect(objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_DAYS: "3" }, { door: "serve" }).git, "/work")?.maxAgeMs).toBe(3 * 24 * 3600 * 1000);
    expect(() => objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_DAYS: "0" }, { door: "serve" }).git, "/work")).toThrow(
      "MAGIS_OBJECT_CACHE_DAYS is '0': set it to the days a worker keeps a repository's objects after its last job (a whole number, from 1 to 3650), or leave it unset for 14",
    );
    expect(() => objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_DAYS: "1.5" }, { door: "serve" }).git, "/work")).toThrow("MAGIS_OBJECT_CACHE_DAYS is '1.5'");
    // Keeping none, the days say nothing.
    expect(objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_MB: "0", MAGIS_OBJECT_CACHE_DAYS: "never" }, { door: "serve" }).git, "/work")).toBeUndefined();
  });
});
