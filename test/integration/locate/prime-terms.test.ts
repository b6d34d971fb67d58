import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { indexRepository } from "../../../src/pipeline/locate/index-repository.js";
import { primeTerms } from "../../../src/pipeline/locate/prime-terms.js";
import { countFile } from "../../../src/pipeline/locate/prepare-document.js";
import { termsKey, TermMemo, type TermMemory } from "../../../src/pipeline/locate/remember-terms.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import type { ClonedFile } from "../../../src/git/write-worktree.js";
import { cartIssue, makeFixtureRepo } from "./fixture-repo.js";

const list = { exclude: ["docs/**"], maxFileBytes: 2_000 };
const query = buildQuery(cartIssue);

let repo: string;
let work: string;
let store: SqliteStore;
// The store's index cache with the memo the wiring keeps in front of it for the process.
let terms: TermMemory;
const others: SqliteStore[] = [];

beforeEach(async () => {
  repo = makeFixtureRepo();
  // Files the Custodian never ranks, which a clone writes all the same.
  const extra: Record<string, string | Buffer> = {
    "node_modules/left-pad/index.js": "module.exports = function leftPad(cart) { return cart; };\n",
    "docs/cart.md": "# Cart\nHow the cart totals prices.\n",
    "logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    "shop/huge.py": `def total_price():\n${"    pass\n".repeat(400)}`,
  };
  for (const [rel, content] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), content);
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-prime-"));
  store = openSqliteStore(path.join(work, "magis.db"));
  await store.migrate();
  terms = { cache: store.memory.index, memo: new TermMemo() };
});

afterEach(async () => {
  for (const other of others.splice(0)) await other.close();
  await store.close();
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

/** Every file of the fixture as a clone hands it over: path, blob id, bytes. */
function clonedFiles(): ClonedFile[] {
  const files: ClonedFile[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(path.join(repo, folder), { withFileTypes: true })) {
      const rel = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else {
        const bytes = fs.readFileSync(path.join(repo, rel));
        files.push({ path: rel, oid: gitBlobId(bytes), bytes });
      }
    }
  };
  walk("");
  return files;
}

describe("terms learned while the clone writes the files", () => {
  it("primes only the files the Custodian would list; the index tokenizes nothing more, stores them, and ranks as without them", async () => {
    const files = clonedFiles();
    await primeTerms(terms, list)(files);
    const memo = terms.memo;
    const primed = files
      .filter((file) => memo.has(termsKey(file.path, file.oid)))
      .map((file) => file.path)
      .sort();
    expect(primed).toEqual(["README.md", "shop/cart.py", "shop/discount.py", "shop/payment.py", "shop/shipping.py"]);
    const primedTerms = memo.get(termsKey("shop/cart.py", files.find((file) => file.path === "shop/cart.py")!.oid))!;
    expect(primedTerms.stored).toBe(false);
    expect(primedTerms.terms).toEqual(countFile({ path: "shop/cart.py", text: fs.readFileSync(path.join(repo, "shop/cart.py"), "utf8") }));

    const index = await indexRepository(repo, list, { terms });
    // Counted as this job's tokenizing, done while the clone wrote; the index used those very terms.
    expect(index.stats).toMatchObject({ files: 5, tokenized: 5 });
    expect(memo.get(termsKey("shop/cart.py", files.find((file) => file.path === "shop/cart.py")!.oid))!.terms).toBe(primedTerms.terms);
    expect(await index.rank(query, 5)).toEqual(await (await indexRepository(repo, list)).rank(query, 5));

    // The index wrote what was primed: another process finds every file in the store.
    const other = openSqliteStore(path.join(work, "magis.db"));
    others.push(other);
    const again = await indexRepository(repo, list, { terms: { cache: other.memory.index, memo: new TermMemo() } });
    expect(again.stats.tokenized).toBe(0);
    expect(memo.get(termsKey("shop/cart.py", files.find((file) => file.path === "shop/cart.py")!.oid))!.stored).toBe(true);
  });

  it("reads what the store knows instead of tokenizing it, and a later job in the same process asks the store nothing", async () => {
    const other = openSqliteStore(path.join(work, "magis.db"));
    others.push(other);
    await indexRepository(repo, list, { terms: { cache: other.memory.index, memo: new TermMemo() } });
    const reads = vi.spyOn(store.memory.index, "readTerms");
    await primeTerms(terms, list)(clonedFiles());
    expect(reads).toHaveBeenCalledTimes(1);
    const first = await indexRepository(repo, list, { terms });
    expect(first.stats.tokenized).toBe(0);
    const second = await indexRepository(repo, list, { terms });
    expect(second.stats.tokenized).toBe(0);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe("priming a repository larger than the memo", () => {
  it("stops at three quarters of the memo's bound, so its first files are still there when the index reads them", async () => {
    const files = clonedFiles();
    const memo = new TermMemo(4_500);
    await primeTerms({ cache: store.memory.index, memo }, list)(files);
    const primed = files.filter((file) => memo.has(termsKey(file.path, file.oid)));
    // The first candidates, in the order the clone gave them: the primer stopped, rather than the memo dropping the first.
    const candidates = files.filter((file) => ["README.md", "shop/cart.py", "shop/discount.py", "shop/payment.py", "shop/shipping.py"].includes(file.path));
    expect(primed.length).toBeGreaterThan(0);
    expect(primed.length).toBeLessThan(5);
    expect(primed.map((f) => f.path)).toEqual(candidates.slice(0, primed.length).map((f) => f.path));
    const sizes = primed.map((file) => new TermMemo().set("x", memo.get(termsKey(file.path, file.oid))!.terms, false));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4_500);
  });
});

describe("TermMemo", () => {
  const terms = (word: string) => ({ counts: new Map([[word.repeat(100), 1]]), defined: [], definedTerms: [] });

  it("drops the entries used longest ago once it holds more than its bound", () => {
    const memo = new TermMemo(800);
    memo.set("a", terms("a"), true);
    memo.set("b", terms("b"), true);
    memo.get("a");
    memo.set("c", terms("c"), true);
    expect(["a", "b", "c"].filter((key) => memo.has(key))).toEqual(["a", "c"]);
  });
});
