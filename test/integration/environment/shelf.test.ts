import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openEnvironmentShelf, scopeFolder, type EnvironmentScope, type EnvironmentShelf, type ShelfOptions } from "../../../src/environment/index.js";

const SCOPE = { repo: "Octo/Demo", installationId: 7 };
const KEY_A = "a".repeat(64);
const KEY_B = "b".repeat(64);
const KEY_C = "c".repeat(64);
const KEY_D = "d".repeat(64);

let work: string;
let folder: string;
let lines: string[];
let clock: number;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-shelf-"));
  folder = path.join(work, "environments");
  lines = [];
  clock = Date.parse("2025-01-01T00:00:00Z");
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** A shelf on `folder` with a clock that moves a minute at each reading, and its log lines kept. */
function open(maxBytes: number, more: Partial<ShelfOptions> = {}): EnvironmentShelf {
  const log = { info: (_: object, msg: string) => lines.push(msg), warn: (_: object, msg: string) => lines.push(msg) };
  return openEnvironmentShelf({ folder, maxBytes, log, now: () => new Date((clock += 60_000)), ...more });
}

/** A set-up copy and a home, `bytes` bytes in all, as a workbench hands them to `keep`. */
function setUp(name: string, bytes = 1000): { repoDir: string; homeDir: string } {
  const repoDir = path.join(work, name, "repo");
  const homeDir = path.join(work, name, "home");
  fs.mkdirSync(path.join(repoDir, ".venv", "lib"), { recursive: true });
  fs.mkdirSync(path.join(homeDir, ".cache"), { recursive: true });
  fs.writeFileSync(path.join(repoDir, ".venv", "lib", "module.py"), "x".repeat(bytes - 100));
  fs.writeFileSync(path.join(homeDir, ".cache", "wheel"), "y".repeat(100));
  return { repoDir, homeDir };
}

function record(buildSeconds = 12) {
  return {
    keyParts: { setup: ["pip install -e ."] },
    source: ".github/magis.yml environment" as const,
    builtAt: new Date(clock).toISOString(),
    buildSeconds,
    checkoutFiles: ["setup.py"],
  };
}

/** A set-up copy of `files` small files, slow enough to copy (about half a second) that a test can act meanwhile. */
function setUpMany(name: string, files = 2000): { repoDir: string; homeDir: string } {
  const { repoDir, homeDir } = setUp(name);
  for (let i = 0; i < files; i++) {
    const dir = path.join(repoDir, ".venv", "lib", `package-${i % 40}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `module-${i}.py`), "x");
  }
  return { repoDir, homeDir };
}

/** The `.keeping-` folder of the keep under way in the scope's folder, once its copy of the repo has begun. */
async function keepingFolder(scopeDir: string): Promise<string> {
  for (let tries = 0; tries < 5000; tries++) {
    const name = (fs.existsSync(scopeDir) ? fs.readdirSync(scopeDir) : []).find((entry) => entry.startsWith(".keeping-"));
    // Making `repo` in it touches it too: it is aged only after.
    if (name && fs.existsSync(path.join(scopeDir, name, "repo"))) return path.join(scopeDir, name);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`no .keeping- folder appeared in ${scopeDir}`);
}

/** Sets a folder's modification time two hours back, as a keeper that stopped leaves it. */
function ageTwoHours(dir: string): void {
  const then = new Date(Date.now() - 2 * 60 * 60 * 1000);
  fs.utimesSync(dir, then, then);
}

async function keep(shelf: EnvironmentShelf, key: string, name: string, bytes = 1000, scope: EnvironmentScope = SCOPE) {
  return shelf.keep({ scope, key, ...setUp(name, bytes), record: record() });
}

describe("openEnvironmentShelf", () => {
  it("keeps a copy under its key, finds it again (a hit) and misses another key, counting both", async () => {
    const shelf = open(10_000);
    const { repoDir, homeDir } = setUp("first");
    const kept = await shelf.keep({ scope: SCOPE, key: KEY_A, repoDir, homeDir, record: record(30) });
    expect(kept?.record).toMatchObject({ scope: SCOPE, key: KEY_A, bytes: 1000, buildSeconds: 30 });
    // The caller's folders stay its own: what it changes after keeping changes nothing kept.
    fs.writeFileSync(path.join(repoDir, ".venv", "lib", "module.py"), "changed");
    fs.rmSync(homeDir, { recursive: true });
    expect(shelf.find({ repo: "octo/demo", installationId: 7 }, KEY_B)).toBeNull();
    const found = shelf.find(SCOPE, KEY_A)!;
    expect(fs.readFileSync(path.join(found.repoDir, ".venv", "lib", "module.py"), "utf8")).toBe("x".repeat(900));
    expect(fs.readFileSync(path.join(found.homeDir, ".cache", "wheel"), "utf8")).toBe("y".repeat(100));
    expect(found.repoDir).toBe(path.join(folder, "octo+demo", KEY_A, "repo"));
    expect(shelf.find({ repo: "octo/demo", installationId: 8 }, KEY_A)).toBeNull();
    expect(shelf.stats()).toEqual({ hits: 1, misses: 2, builds: 1, buildSeconds: 30, bytes: 1000, kept: 1, evicted: 0 });
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(folder, "octo+demo")).mode & 0o777).toBe(0o700);
  });

  it("hands out folders to copy from: a run's copy of them changes nothing kept", async () => {
    const shelf = open(10_000);
    await keep(shelf, KEY_A, "first");
    const found = shelf.find(SCOPE, KEY_A)!;
    const own = path.join(work, "run", "repo");
    fs.cpSync(found.repoDir, own, { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(own, ".venv", "lib", "module.py"), "altered by a test");
    fs.rmSync(path.join(own, ".venv", "lib"), { recursive: true });
    shelf.release(found);
    const again = shelf.find(SCOPE, KEY_A)!;
    expect(fs.readFileSync(path.join(again.repoDir, ".venv", "lib", "module.py"), "utf8")).toBe("x".repeat(900));
  });

  it("evicts the least recently used beyond the bound, never one handed out and not released", async () => {
    const shelf = open(2500);
    await keep(shelf, KEY_A, "a");
    await keep(shelf, KEY_B, "b");
    const a = shelf.find(SCOPE, KEY_A)!;
    shelf.release(shelf.find(SCOPE, KEY_B)!);
    // A is now the least recently used, but handed out: B goes.
    await keep(shelf, KEY_C, "c");
    await shelf.settled();
    expect(shelf.list().map((r) => r.key)).toEqual([KEY_C, KEY_A]);
    expect(fs.existsSync(a.repoDir)).toBe(true);
    // Beside them, the marker of A's hold (see placeHold).
    expect(fs.readdirSync(path.join(folder, "octo+demo")).sort()).toEqual([".holds", KEY_A, KEY_C]);
    shelf.release(a);
    await keep(shelf, KEY_D, "d");
    await shelf.settled();
    expect(shelf.list().map((r) => r.key)).toEqual([KEY_D, KEY_C]);
    expect(shelf.stats()).toMatchObject({ evicted: 2, kept: 2, bytes: 2000 });
    expect(lines.filter((line) => line.startsWith("evicted"))).toHaveLength(2);
  });

  it("does not keep an environment bigger than the bound alone, nor any when keeping is off, and says so", async () => {
    const shelf = open(500);
    expect(await keep(shelf, KEY_A, "big", 1000)).toBeNull();
    expect(lines).toEqual(["not kept: the environment alone is bigger than MAGIS_ENV_CACHE_MB"]);
    expect(fs.existsSync(folder)).toBe(false);
    const off = open(0);
    expect(off.maxBytes).toBe(0);
    expect(await keep(off, KEY_B, "small", 200)).toBeNull();
    expect(off.list()).toEqual([]);
    expect(off.stats()).toMatchObject({ builds: 1, kept: 0 });
  });

  it("refuses one too big by measuring the caller's folders, before copying anything", async () => {
    const { repoDir, homeDir } = setUp("sparse");
    // 64 MB that take no room (a hole): measured at once, while a copy would write them all.
    fs.truncateSync(path.join(repoDir, ".venv", "lib", "module.py"), 64 * 1024 * 1024);
    const shelf = open(10_000_000);
    expect(await shelf.keep({ scope: SCOPE, key: KEY_A, repoDir, homeDir, record: record() })).toBeNull();
    expect(lines).toEqual(["not kept: the environment alone is bigger than MAGIS_ENV_CACHE_MB"]);
    expect(fs.existsSync(folder)).toBe(false);
  });

  it("evicts for the incoming bytes before it renames the new one into place, so the bound holds throughout", async () => {
    const shelf = open(2500);
    await keep(shelf, KEY_A, "a");
    await keep(shelf, KEY_B, "b");
    const scopeDir = path.join(folder, "octo+demo");
    const events: string[] = [];
    const watcher = fs.watch(scopeDir, (_, name) => events.push(String(name)));
    try {
      await keep(shelf, KEY_C, "c");
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      watcher.close();
    }
    const order = events.filter((name) => name === KEY_A || name === KEY_C);
    expect(order[0]).toBe(KEY_A);
    expect(order).toContain(KEY_C);
    await shelf.settled();
    expect(shelf.list().map((r) => r.key)).toEqual([KEY_C, KEY_B]);
  });

  it("sweeps half-kept folders by their age, never by a pid: another container's live pid or one of its own dead one", async () => {
    const scope = path.join(folder, "octo+demo");
    // A worker in another container that stopped an hour ago, with the same small pid as this one.
    const stopped = path.join(scope, `.keeping-${process.pid}-stopped`);
    // A worker in another container copying right now, whose pid is no process here.
    const copying = path.join(scope, ".keeping-999999999-copying");
    const removing = path.join(scope, `.removing-${KEY_A}-1234`);
    for (const dir of [stopped, copying, removing]) fs.mkdirSync(path.join(dir, "repo"), { recursive: true });
    fs.writeFileSync(path.join(stopped, "repo", "half"), "half a copy");
    ageTwoHours(stopped);
    const shelf = open(10_000);
    await shelf.settled();
    expect(fs.readdirSync(scope)).toEqual([path.basename(copying)]);
    expect(shelf.list()).toEqual([]);
    // One that stops while this shelf is open is swept by its next keep.
    ageTwoHours(copying);
    await keep(shelf, KEY_B, "b");
    await shelf.settled();
    expect(fs.readdirSync(scope)).toEqual([KEY_B]);
  });

  it("touches its half-kept folder while copying, so that another worker's sweep leaves a live keeper alone", async () => {
    const shelf = open(10_000_000, { heartbeatMs: 20 });
    const keeping = shelf.keep({ scope: SCOPE, key: KEY_A, ...setUpMany("many"), record: record() });
    let done = false;
    void keeping.finally(() => (done = true)).catch(() => undefined);
    const temp = await keepingFolder(path.join(folder, "octo+demo"));
    expect(path.basename(temp)).not.toContain(String(process.pid));
    ageTwoHours(temp);
    // The copy of the repo lasts about a second; the heartbeat (20 ms here) touches the folder well within it.
    const aged = Date.now();
    while (Date.now() - aged < 300 && Date.now() - fs.statSync(temp).mtimeMs > 60_000) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(Date.now() - fs.statSync(temp).mtimeMs).toBeLessThan(60_000);
    expect(done).toBe(false);
    const other = open(10_000_000);
    const kept = await keeping;
    await other.settled();
    expect(kept?.record.key).toBe(KEY_A);
    expect(fs.readdirSync(path.join(kept!.repoDir, ".venv", "lib", "package-39"))).toHaveLength(50);
    expect(fs.readdirSync(path.join(folder, "octo+demo"))).toEqual([KEY_A]);
  });

  it("lands nothing when a sweep takes its half-kept folder mid-copy (a keeper stalled for an hour), and says so", async () => {
    const shelf = open(10_000_000);
    const keeping = shelf.keep({ scope: SCOPE, key: KEY_A, ...setUpMany("many"), record: record() });
    const failed = keeping.catch((error: unknown) => error as Error);
    ageTwoHours(await keepingFolder(path.join(folder, "octo+demo")));
    const other = open(10_000_000);
    expect(String(await failed)).toMatch(/was taken by a sweep while it was being copied .*it is kept at the next build/);
    await Promise.all([shelf.settled(), other.settled()]);
    expect(fs.readdirSync(path.join(folder, "octo+demo"))).toEqual([]);
    expect(shelf.find(SCOPE, KEY_A)).toBeNull();
  });

  it("drops a record that is not one with a log line, and reads records back after a restart", async () => {
    const first = open(10_000);
    await keep(first, KEY_A, "a");
    await keep(first, KEY_B, "b");
    const usedAt = first.find(SCOPE, KEY_A)!.record.usedAt;
    fs.writeFileSync(path.join(folder, "octo+demo", KEY_B, "record.json"), '{"scope": {"repo": "octo/demo"}, "key": "not its folder"');
    const second = open(10_000);
    expect(second.list().map((r) => [r.key, r.usedAt])).toEqual([[KEY_A, usedAt]]);
    expect(lines).toContain("dropped a kept environment whose record.json is not one (it is not JSON): it is built again when next needed");
    expect(second.find(SCOPE, KEY_B)).toBeNull();
    await second.settled();
    expect(fs.readdirSync(path.join(folder, "octo+demo")).sort()).toEqual([".holds", KEY_A]);
  });

  it("removes a repository's environments, and an installation's, even one handed out once it is released", async () => {
    const shelf = open(100_000);
    await keep(shelf, KEY_A, "a", 1000, { repo: "octo/demo", installationId: 7 });
    await keep(shelf, KEY_B, "b", 1000, { repo: "octo/other", installationId: 7 });
    await keep(shelf, KEY_C, "c", 1000, { repo: "else/where", installationId: 9 });
    const local = path.join(work, "checkout");
    await keep(shelf, KEY_D, "d", 1000, { repo: local });
    expect(fs.existsSync(path.join(folder, scopeFolder(local), KEY_D))).toBe(true);
    expect(scopeFolder(local)).toMatch(/^local-[0-9a-f]{16}$/);
    expect(shelf.remove({ repo: "ELSE/where" })).toBe(1);
    const held = shelf.find({ repo: "octo/demo", installationId: 7 }, KEY_A)!;
    expect(shelf.remove({ installationId: 7 })).toBe(2);
    expect(shelf.list().map((r) => r.scope.repo)).toEqual([local]);
    expect(shelf.find({ repo: "octo/demo" }, KEY_A)).toBeNull();
    expect(fs.existsSync(held.repoDir)).toBe(true);
    shelf.release(held);
    expect(shelf.remove({ repo: local })).toBe(1);
    await shelf.settled();
    expect(fs.readdirSync(path.join(folder, "octo+demo"))).toEqual([]);
    expect(shelf.stats()).toMatchObject({ kept: 0, bytes: 0 });
  });

  it("keeps links the commands planted as links: not followed when copying nor counted when sizing", async () => {
    const big = path.join(work, "big-outside");
    fs.writeFileSync(big, Buffer.alloc(1_000_000));
    const { repoDir, homeDir } = setUp("links");
    fs.symlinkSync("/etc/shadow", path.join(repoDir, "shadow"));
    fs.symlinkSync(big, path.join(repoDir, ".venv", "big"));
    fs.symlinkSync("/etc", path.join(homeDir, "etc"));
    fs.symlinkSync("../repo-relative", path.join(repoDir, "relative"));
    const shelf = open(10_000);
    const kept = (await shelf.keep({ scope: SCOPE, key: KEY_A, repoDir, homeDir, record: record() }))!;
    const linkBytes = ["/etc/shadow", big, "/etc", "../repo-relative"].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    expect(kept.record.bytes).toBe(1000 + linkBytes);
    expect(fs.readlinkSync(path.join(kept.repoDir, "shadow"))).toBe("/etc/shadow");
    expect(fs.readlinkSync(path.join(kept.repoDir, ".venv", "big"))).toBe(big);
    expect(fs.readlinkSync(path.join(kept.homeDir, "etc"))).toBe("/etc");
    expect(fs.readlinkSync(path.join(kept.repoDir, "relative"))).toBe("../repo-relative");
    expect(fs.lstatSync(path.join(kept.homeDir, "etc")).isSymbolicLink()).toBe(true);
  });

  it("refuses a folder that is not the bot's own", () => {
    if (process.getuid?.() !== 0) {
      // As another user no folder of someone else's can be made here: a link stands in for it.
      fs.symlinkSync(work, folder);
      expect(() => open(10)).toThrow(/is not a folder \(a link\?\)/);
      return;
    }
    fs.mkdirSync(folder, { mode: 0o700 });
    fs.chownSync(folder, 65534, 65534);
    expect(() => open(10)).toThrow(
      `the kept environments' folder ${folder} belongs to user 65534, not to the bot (0): set MAGIS_ENV_DIR to a folder of the bot's own`,
    );
  });

  it("makes no folder until it keeps one, and refuses a key that is not one", () => {
    const shelf = open(10);
    expect(shelf.list()).toEqual([]);
    expect(shelf.find(SCOPE, KEY_A)).toBeNull();
    expect(fs.existsSync(folder)).toBe(false);
    expect(() => shelf.find(SCOPE, "../../etc")).toThrow("'../../etc' is not an environment key (hex, from environmentKey): nothing is kept under it");
  });
});

describe("an environment held by another process on the same folder", () => {
  const keptDir = (key: string) => path.join(folder, scopeFolder(SCOPE.repo), key);

  it("is neither evicted nor cleared while held, and goes once released", async () => {
    const worker = open(1500);
    const other = open(1500);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    const found = worker.find(SCOPE, KEY_A)!;
    // The other process's keep would evict it (two 1000-byte environments over a 1500-byte bound), and its clear remove it.
    await other.keep({ scope: SCOPE, key: KEY_B, ...setUp("b"), record: record() });
    await other.settled();
    expect(fs.readFileSync(path.join(found.repoDir, ".venv", "lib", "module.py"), "utf8")).toHaveLength(900);
    expect(other.remove({ repo: SCOPE.repo })).toBe(2);
    await other.settled();
    expect(fs.existsSync(path.join(found.repoDir, ".venv", "lib", "module.py"))).toBe(true);
    expect(fs.existsSync(keptDir(KEY_B))).toBe(false);
    // Cleared: found no more, by either, and gone from the disk once its holder lets it go.
    expect(other.list()).toEqual([]);
    expect(worker.find(SCOPE, KEY_A)).toBeNull();
    worker.release(found);
    await worker.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
  });

  it("is not replaced by a build of its key once cleared while held", async () => {
    const worker = open(64_000);
    const other = open(64_000);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    const found = worker.find(SCOPE, KEY_A)!;
    other.remove({ repo: SCOPE.repo });
    await expect(other.keep({ scope: SCOPE, key: KEY_A, ...setUp("again"), record: record() })).rejects.toThrow(/removed while a job holds it/);
    await other.settled();
    expect(fs.existsSync(path.join(found.repoDir, ".venv", "lib", "module.py"))).toBe(true);
    worker.release(found);
    await worker.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
  });

  it("is not taken away by a clear that looked before another process's find held it, and renamed it after", async () => {
    const worker = open(64_000);
    const other = open(64_000);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    // The other process's clear has seen no hold; the worker's find runs between that look and its rename.
    const rename = fs.renameSync;
    let found: ReturnType<EnvironmentShelf["find"]> = null;
    const spy = vi.spyOn(fs, "renameSync").mockImplementation((from, to) => {
      if (from === keptDir(KEY_A) && String(to).includes(".removing-") && !found) found = worker.find(SCOPE, KEY_A);
      rename(from, to);
    });
    try {
      expect(other.remove({ repo: SCOPE.repo })).toBe(1);
    } finally {
      spy.mockRestore();
    }
    await other.settled();
    expect(found).not.toBeNull();
    expect(fs.readFileSync(path.join(found!.repoDir, ".venv", "lib", "module.py"), "utf8")).toHaveLength(900);
    // Cleared all the same: found no more, and gone once its holder lets it go.
    expect(other.find(SCOPE, KEY_A)).toBeNull();
    worker.release(found!);
    await worker.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
  });

  it("stays cleared when another process's find read its record before the clear and writes it after", async () => {
    const worker = open(64_000);
    const other = open(64_000);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    // The worker's find has placed its hold and read the record; the other process clears it before the write.
    const write = fs.writeFileSync;
    let cleared = -1;
    const spy = vi.spyOn(fs, "writeFileSync").mockImplementation((file, ...rest) => {
      if (cleared < 0 && String(file).startsWith(`${keptDir(KEY_A)}${path.sep}.record-`)) cleared = other.remove({ repo: SCOPE.repo });
      write(file, ...rest);
    });
    let found: ReturnType<EnvironmentShelf["find"]>;
    try {
      found = worker.find(SCOPE, KEY_A);
    } finally {
      spy.mockRestore();
    }
    expect(cleared).toBe(1);
    expect(found).not.toBeNull();
    expect(fs.readFileSync(path.join(found!.repoDir, ".venv", "lib", "module.py"), "utf8")).toHaveLength(900);
    // Cleared all the same: found no more, and gone once its holder lets it go.
    expect(other.find(SCOPE, KEY_A)).toBeNull();
    worker.release(found!);
    await worker.settled();
    await other.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
  });

  it("lets its hold go when a find fails on its record, so that it can still be cleared", async () => {
    const worker = open(1500);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    // The record's write fails for another reason than the folder's absence (a full disk, an I/O error).
    const rename = vi.spyOn(fs, "renameSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" });
    });
    try {
      expect(() => worker.find(SCOPE, KEY_A)).toThrow(/EIO/);
    } finally {
      rename.mockRestore();
    }
    // No hold is left behind: another process's clear takes it away at once, not once this process ends.
    expect(open(1500).remove({ repo: SCOPE.repo })).toBe(1);
    await worker.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
  });

  it("is not held by the marker of a process that is gone", async () => {
    const worker = open(1500);
    await worker.keep({ scope: SCOPE, key: KEY_A, ...setUp("a"), record: record() });
    const holds = path.join(folder, scopeFolder(SCOPE.repo), ".holds");
    fs.mkdirSync(holds, { recursive: true });
    // A pid that runs, with another start time: the pid was reused by a process that is not the holder.
    fs.writeFileSync(path.join(holds, `${KEY_A}-${process.pid}-1-0000`), "");
    expect(open(1500).remove({ repo: SCOPE.repo })).toBe(1);
    await worker.settled();
    expect(fs.existsSync(keptDir(KEY_A))).toBe(false);
    expect(fs.existsSync(holds)).toBe(false);
  });
});
