import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { checkoutPrefix, THIS_PROCESS } from "../../../src/git/checkout-name.js";
import { nameWorkspace, openLanguageServers, type LanguageServers } from "../../../src/language-servers/index.js";
import type { TermCache } from "../../../src/language-servers/remember-untouched.js";
import type { ServerEnvironment } from "../../../src/language-servers/types.js";

const LIMITS = { startMs: 60_000, requestMs: 60_000, memoryMb: 512 };
const PRICES = "def total(items, discount=0):\n    return sum(items) - discount\n";
const CART = "from prices import total\n\n\ndef checkout(items):\n    return total(items)\n";
const dirs: string[] = [];
const opened: LanguageServers[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.stop()));
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A git checkout of the files at one commit, its work tree clean. */
function committedCheckout(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-untouched-test-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { stdio: "ignore" });
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "base");
  return dir;
}

/** The store's real index cache, with the keys written to it noted (the entries themselves stay in SQLite). */
async function recordedCache(): Promise<{ cache: TermCache; written: string[]; reads: number[] }> {
  const store = openSqliteStore(":memory:");
  stores.push(store);
  await store.migrate();
  const written: string[] = [];
  const reads: number[] = [];
  const cache: TermCache = {
    readTerms: async (keys) => {
      const found = await store.memory.index.readTerms(keys);
      reads.push(found.size);
      return found;
    },
    writeTerms: async (entries, used) => {
      written.push(...entries.map(([key]) => key));
      await store.memory.index.writeTerms(entries, used);
    },
  };
  return { cache, written, reads };
}

function job(root: string, cache: TermCache): LanguageServers {
  const servers = openLanguageServers(root, LIMITS, undefined, { cache, workspace: nameWorkspace(root) });
  opened.push(servers);
  return servers;
}

/** The language-server temp folders of this process: one for each server running. */
const serverFolders = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(checkoutPrefix(THIS_PROCESS, "language-server")));

const rules = (check: Awaited<ReturnType<LanguageServers["check"]>>) => (check.checked ? check.added.map((p) => `${p.line} ${p.rule}`) : check.why);

describe("the untouched files' diagnostics across jobs", () => {
  it("one server serves a job's attempts, and a later job on the commit reads the untouched text's diagnostics back", async () => {
    const root = committedCheckout({ "prices.py": PRICES, "cart.py": CART });
    const { cache, written, reads } = await recordedCache();
    const first = job(root, cache);
    const before = serverFolders().length;
    expect(rules(await first.check("prices.py", PRICES, PRICES.replace("sum(items)", "summ(items)")))).toEqual(["2 reportUndefinedVariable"]);
    expect(rules(await first.check("prices.py", PRICES, PRICES.replace("discount\n", "discount + rebate\n")))).toEqual(["2 reportUndefinedVariable"]);
    // Two attempts, one server started, and the untouched text kept once.
    expect(serverFolders().length - before).toBe(1);
    expect(written).toHaveLength(1);
    expect(reads).toEqual([0]);

    const second = job(root, cache);
    // What the change adds is still caught when the untouched text is not checked again.
    expect(rules(await second.check("prices.py", PRICES, PRICES.replace("sum(items)", "summ(items)")))).toEqual(["2 reportUndefinedVariable"]);
    expect(reads).toEqual([0, 1]);
    expect(written).toHaveLength(1);
  });

  it("the kept entry is what a later job compares with: an error kept as the untouched text's is not blamed on the change", async () => {
    const root = committedCheckout({ "prices.py": PRICES, "cart.py": CART });
    const { cache, written } = await recordedCache();
    const broken = PRICES.replace("sum(items)", "summ(items)");
    // The first job's check of a text holding the error keeps, under the untouched text's key, diagnostics that hold it.
    const first = job(root, cache);
    await first.check("prices.py", PRICES, PRICES);
    const [key] = written;
    const holding = await job(root, cache).check("prices.py", broken, broken);
    expect(holding.checked).toBe(true);
    const kept = await cache.readTerms([written[1]!]);
    // Entries name what they were made of and are never rewritten: the doctored one goes into another store.
    const other = await recordedCache();
    await other.cache.writeTerms([[key!, kept.get(written[1]!)!]], []);
    expect(rules(await job(root, other.cache).check("prices.py", PRICES, broken))).toEqual([]);
    expect(other.reads).toEqual([1]);
  });

  it("a changed untouched text, another commit or a dirty work tree is a miss", async () => {
    const root = committedCheckout({ "prices.py": PRICES, "cart.py": CART });
    const { cache, written, reads } = await recordedCache();
    await job(root, cache).check("prices.py", PRICES, PRICES);
    await job(root, cache).check("prices.py", `${PRICES}\n`, PRICES);
    expect(new Set(written).size).toBe(2);
    expect(reads).toEqual([0, 0]);
    fs.writeFileSync(path.join(root, "cart.py"), `${CART}\n`);
    expect(await nameWorkspace(root)).toBeNull();
    await job(root, cache).check("prices.py", PRICES, PRICES);
    expect(reads).toEqual([0, 0]);
    expect(written).toHaveLength(2);
  });

  // Each job sees its kept environment at host folders of its own (<checkout>.tests/own/set-up): the same environment
  // key and the same folders within it are one key, wherever the job's folders are.
  it("a later job with the same kept environment at other host folders reads them back; another environment key misses", async () => {
    const before = "from calc import add\n\n\ndef main():\n    return add(1, 2)\n";
    const after = before.replace("add(1, 2)", "add(1, 2, 3)");
    const first = committedCheckout({ "app.py": before });
    const { cache, written, reads } = await recordedCache();
    const checkIn = async (root: string, key: string | undefined) => {
      const servers = job(root, cache);
      servers.useEnvironment(Promise.resolve(setUpEnvironment(root, key)));
      await new Promise((resolve) => setImmediate(resolve));
      return rules(await servers.check("app.py", before, after));
    };
    // The call's error is the environment's package's: without its folders, calc does not resolve and nothing is added.
    expect(await checkIn(first, "5e1f0c2a9b7d")).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0]);
    const second = cloneOf(first);
    expect(await checkIn(second, "5e1f0c2a9b7d")).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0, 1]);
    expect(written).toHaveLength(1);
    expect(await checkIn(cloneOf(first), "77aa00bb11cc")).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0, 1, 0]);
    // Without a key, the folders as they are key the entry: another job's folders are a miss.
    expect(await checkIn(cloneOf(first), undefined)).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0, 1, 0, 0]);
  });

  // One key can stand for other packages: a rebuild after eviction resolves unpinned dependencies anew, a maintenance
  // step upgrades. What the untouched text was checked against is told apart by what is installed.
  it("the same environment key over other installed versions misses", async () => {
    const before = "from calc import add\n\n\ndef main():\n    return add(1, 2)\n";
    const after = before.replace("add(1, 2)", "add(1, 2, 3)");
    const first = committedCheckout({ "app.py": before });
    const { cache, reads } = await recordedCache();
    const checkIn = async (root: string, version: string) => {
      const servers = job(root, cache);
      servers.useEnvironment(Promise.resolve(setUpEnvironment(root, "5e1f0c2a9b7d", version)));
      await new Promise((resolve) => setImmediate(resolve));
      return rules(await servers.check("app.py", before, after));
    };
    expect(await checkIn(first, "1.0")).toEqual(["5 reportCallIssue"]);
    expect(await checkIn(cloneOf(first), "1.0")).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0, 1]);
    expect(await checkIn(cloneOf(first), "2.0")).toEqual(["5 reportCallIssue"]);
    expect(reads).toEqual([0, 1, 0]);
  });

  it("with the refusing rules given, checks the untouched text only when the new one has an error of them, and lists theirs alone", async () => {
    const LEGACY = "def price(items):\n    return summ(items)\n";
    const root = committedCheckout({ "prices.py": PRICES, "legacy.py": LEGACY });
    const { cache, written } = await recordedCache();
    const servers = job(root, cache);
    const refusing = { python: ["reportUndefinedVariable"], typescript: [] };
    // Clean of the rules: the untouched text is never checked, so nothing of it is kept.
    const clean = PRICES.replace("discount\n", "discount + 1\n");
    expect(rules(await servers.check("prices.py", PRICES, clean, { only: refusing }))).toEqual([]);
    expect(written).toEqual([]);
    // An error of another rule the change adds is not listed with the rules given, and is without them.
    const attribute = PRICES.replace("sum(items)", "sum(items).real.nosuch");
    expect(rules(await servers.check("prices.py", PRICES, attribute, { only: refusing }))).toEqual([]);
    expect(written).toEqual([]);
    expect(rules(await servers.check("prices.py", PRICES, attribute))).toEqual(["2 reportAttributeAccessIssue"]);
    expect(written).toHaveLength(1);
    // The new text has an error of the rules that the file had already: the untouched text is checked, and it is not blamed.
    expect(rules(await servers.check("legacy.py", LEGACY, `${LEGACY}# noted\n`, { only: refusing }))).toEqual([]);
    expect(written).toHaveLength(2);
    // And one it adds is listed.
    expect(rules(await servers.check("legacy.py", LEGACY, LEGACY.replace("(items)", "(itemz)"), { only: refusing }))).toEqual(["2 reportUndefinedVariable"]);
  });
});

/** A clone of the checkout `root` in a folder of its own: the same commit, its work tree clean. */
function cloneOf(root: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-untouched-test-"));
  dirs.push(dir);
  execFileSync("git", ["clone", "-q", root, dir], { stdio: "ignore" });
  return dir;
}

/**
 * The environment a job's workbench shows its servers, as askSearchPaths maps it: a set-up copy beside the checkout
 * (as `<checkout>.tests/own/set-up`) whose venv holds the package calc, and its home, kept under `key`.
 */
function setUpEnvironment(root: string, key: string | undefined, version = "1.0"): ServerEnvironment {
  const setUp = `${root}.tests/own/set-up`;
  const home = `${root}.tests/own/home`;
  dirs.push(`${root}.tests`);
  const site = path.join(setUp, ".venv/lib/python3.11/site-packages");
  fs.mkdirSync(path.join(site, "calc"), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(site, "calc/__init__.py"), "def add(a: int, b: int) -> int:\n    return a + b\n");
  fs.mkdirSync(path.join(site, `calc-${version}.dist-info`));
  fs.writeFileSync(path.join(site, `calc-${version}.dist-info/METADATA`), `Name: calc\nVersion: ${version}\n`);
  return { ...(key === undefined ? {} : { key }), roots: [setUp, home], python: [site], nodeModules: [] };
}
