import { describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { DEFAULT_RANK_OPTIONS, rankFiles } from "../../../src/pipeline/locate/rank-files.js";
import { indexHistory } from "../../../src/pipeline/locate/score-history.js";
import { mainExtensions, pathPrior } from "../../../src/pipeline/locate/score-path.js";
import { sliceWork } from "../../../src/lib/slice-work.js";
import type { CommitRecord } from "../../../src/git/commit-history.js";

let made = 0;
const commit = (message: string, files: string[], time = 1_700_000_000 + made): CommitRecord => ({
  oid: (++made).toString(16).padStart(40, "0"),
  time,
  message,
  files,
});
const terms = (text: string): Array<[string, number]> => [...buildQuery({ title: text, body: "", hints: [] }).terms];
const params = { k1: 1.2, b: 0.75 };
const candidates = new Set(["pkg/money.py", "pkg/cart.py", "pkg/ship.py", "tests/test_money.py", "CHANGES.rst", "pkg/a.py", "pkg/b.py"]);
const isCandidate = (path: string) => candidates.has(path);
const even = () => 1;
/** The history index over `commits`, with this file's candidates. */
const indexOf = (commits: CommitRecord[]) => indexHistory(commits, isCandidate, params, sliceWork());

describe("indexHistory", () => {
  it("weighs the files of the commits whose messages are like the query, the strongest 1", async () => {
    const index = await indexOf([
      commit("Fix rounding of the cart total", ["pkg/money.py"]),
      commit("Speed up shipping cost lookup", ["pkg/ship.py"]),
      commit("Cart total ignores discounts", ["pkg/cart.py"]),
    ]);
    const weights = await index.score(terms("cart total rounding"), even, sliceWork());
    expect(weights.get("pkg/money.py")?.weight).toBe(1);
    expect(weights.get("pkg/cart.py")?.weight).toBeGreaterThan(0);
    expect(weights.get("pkg/cart.py")?.weight).toBeLessThan(1);
    expect(weights.has("pkg/ship.py")).toBe(false);
  });

  it("shares a commit's weight among its files by their prior, so the fix's source takes more than its test and change log", async () => {
    const index = await indexOf([commit("Fix rounding of totals", ["pkg/money.py", "tests/test_money.py", "CHANGES.rst"])]);
    const prior = (path: string) => (path.startsWith("tests/") ? 0.5 : path.endsWith(".rst") ? 0.3 : 1);
    const weights = await index.score(terms("rounding totals"), prior, sliceWork());
    expect(weights.get("pkg/money.py")?.weight).toBe(1);
    expect(weights.get("tests/test_money.py")?.weight).toBeCloseTo(0.5, 10);
    expect(weights.get("CHANGES.rst")?.weight).toBeCloseTo(0.3, 10);
  });

  it("leaves out commits that changed no candidate or more than ten, and the people its trailers name", async () => {
    const many = Array.from({ length: 11 }, (_, i) => `pkg/m${i}.py`);
    for (const path of many) candidates.add(path);
    const index = await indexOf([
      commit("Reformat everything for rounding", many),
      commit("Rounding notes", ["docs/notes.md"]),
      commit("Tidy imports\n\nCo-authored-by: Rounding Bot <bot@example.com>", ["pkg/a.py"]),
      commit("Fix rounding", ["pkg/b.py"]),
    ]);
    expect(index.commits).toBe(2);
    const weights = await index.score(terms("rounding"), even, sliceWork());
    expect([...weights.keys()]).toEqual(["pkg/b.py"]);
  });

  it("keeps a commit of exactly ten candidates, and counts a file its commit names twice once", async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `pkg/t${i}.py`);
    for (const path of ten) candidates.add(path);
    const index = await indexOf([commit("Rounding in ten modules", ten), commit("Fix totals", ["pkg/money.py", "tests/test_money.py", "pkg/money.py"])]);
    expect(index.commits).toBe(2);
    const weights = await index.score(terms("totals"), (path) => (path.startsWith("tests/") ? 0.5 : 1), sliceWork());
    expect(Object.fromEntries([...weights].map(([path, { weight }]) => [path, weight]))).toEqual({ "pkg/money.py": 1, "tests/test_money.py": 0.5 });
  });

  it("lets the event loop run while it indexes the commits", async () => {
    const commits = Array.from({ length: 50 }, (_, i) => commit(`Fix rounding ${i}`, ["pkg/money.py"]));
    const order: string[] = [];
    // A webhook arriving meanwhile: it must not wait for the whole history (slices of 0 ms yield at every step).
    setImmediate(() => order.push("other work"));
    await indexHistory(commits, isCandidate, params, sliceWork(0)).then(() => order.push("indexed"));
    expect(order).toEqual(["other work", "indexed"]);
  });

  it("keeps the thirty best commits, the newer first among equals", async () => {
    const commits = Array.from({ length: 40 }, (_, i) => commit("Fix rounding", [`pkg/r${i}.py`], 1_000 + i));
    for (const c of commits) candidates.add(c.files[0]!);
    const weights = await (await indexOf(commits)).score(terms("rounding"), even, sliceWork());
    expect(weights.size).toBe(30);
    expect(weights.has("pkg/r39.py")).toBe(true);
    expect(weights.has("pkg/r9.py")).toBe(false);
  });

  it("answers nothing when no commit matches or there is no commit", async () => {
    expect((await (await indexOf([commit("Fix rounding", ["pkg/a.py"])])).score(terms("shipping"), even, sliceWork())).size).toBe(0);
    expect((await (await indexOf([])).score(terms("rounding"), even, sliceWork())).size).toBe(0);
  });
});

describe("rankFiles with history", () => {
  const files = [
    { path: "shop/cart.py", text: "class Cart:\n    def total(self):\n        return sum(item.price for item in self.items)\n" },
    { path: "shop/money.py", text: "def to_minor_units(amount):\n    return int(amount * 100)\n" },
    { path: "shop/ship.py", text: "def shipping(weight):\n    return weight * 2\n" },
  ];
  const query = buildQuery({ title: "Cart total is off by a cent", body: "The total of a cart with three items is one cent short.", hints: [] });
  const history = [commit("Fix: cart total off by one cent for some prices", ["shop/money.py"]), commit("Faster shipping", ["shop/ship.py"])];

  it("brings in a file the issue's words miss when a past commit like the issue changed it, below the best file", async () => {
    const without = await rankFiles(files, query, 10);
    expect(without.map((f) => f.path)).toEqual(["shop/cart.py"]);
    const ranked = await rankFiles(files, query, 10, { ranking: DEFAULT_RANK_OPTIONS, history });
    expect(ranked.map((f) => f.path)).toEqual(["shop/cart.py", "shop/money.py"]);
    // A tenth of the best file's score, the history's weight.
    expect(ranked[1]!.score).toBeCloseTo(ranked[0]!.score * DEFAULT_RANK_OPTIONS.historyBoost, 2);
    expect(ranked[0]!.score).toBe(without[0]!.score);
    // The file says which past commit brought it in; one the history lent nothing names none.
    expect(ranked[1]!.pastChange).toEqual({ oid: history[0]!.oid, subject: "Fix: cart total off by one cent for some prices" });
    expect(ranked[0]!.pastChange).toBeUndefined();
  });

  it("names the commit that lent a file the most, and keeps it when the file is also raised as an import", async () => {
    // Shares one word with the issue: it lends money.py less than the commit about the cent.
    const older = commit("Tidy the cart helpers", ["shop/money.py"], 1);
    const importing = [{ ...files[0]!, text: `from shop.money import to_minor_units\n${files[0]!.text}` }, ...files.slice(1)];
    const ranked = await rankFiles(importing, query, 10, { ranking: DEFAULT_RANK_OPTIONS, history: [older, ...history] });
    const money = ranked.find((f) => f.path === "shop/money.py")!;
    expect(money.pastChange?.oid).toBe(history[0]!.oid);
    expect(money.score).toBeGreaterThan(ranked[0]!.score * DEFAULT_RANK_OPTIONS.historyBoost);
  });

  it("gives a file less of the best file's score by its prior (a test file less than a source file)", async () => {
    const withTest = [...files, { path: "tests/test_money.py", text: "def test_minor_units():\n    assert to_minor_units(1) == 100\n" }];
    const ranked = await rankFiles(withTest, query, 10, {
      ranking: DEFAULT_RANK_OPTIONS,
      history: [commit("Fix: cart total off by one cent for some prices", ["tests/test_money.py"])],
    });
    const prior = pathPrior("tests/test_money.py", mainExtensions(withTest.map((f) => ({ path: f.path, size: f.text.length }))));
    expect(prior).toBeLessThan(1);
    expect(ranked.map((f) => f.path)).toEqual(["shop/cart.py", "tests/test_money.py"]);
    expect(ranked[1]!.score).toBeCloseTo(ranked[0]!.score * DEFAULT_RANK_OPTIONS.historyBoost * prior, 2);
  });

  it("ranks as without history when historyBoost is 0", async () => {
    const off = { ...DEFAULT_RANK_OPTIONS, historyBoost: 0 };
    expect(await rankFiles(files, query, 10, { ranking: off, history })).toEqual(await rankFiles(files, query, 10));
  });
});
