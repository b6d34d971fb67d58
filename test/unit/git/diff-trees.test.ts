import { describe, expect, it } from "vitest";
import { gitObjectId } from "../../../src/git/git-object-id.js";
import { diffTrees } from "../../../src/git/pack/diff-trees.js";

/** Hand-made trees, by id, and what each read asked for. */
class Trees {
  readonly objects = new Map<string, Buffer>();
  readonly read: string[] = [];

  /** A tree object of `entries` (mode, name, id), in the order given, stored; returns its id. */
  tree(entries: [mode: string, name: string, oid: string][]): string {
    const data = Buffer.concat(entries.map(([mode, name, oid]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, "hex")])));
    const oid = gitObjectId("tree", data);
    this.objects.set(oid, data);
    return oid;
  }

  readTree = (oid: string): Buffer | undefined => {
    this.read.push(oid);
    return this.objects.get(oid);
  };
}

const blob = (text: string) => gitObjectId("blob", Buffer.from(text));

describe("diffTrees", () => {
  it("lists files added, changed in content or mode, and deleted, with full paths in git's order", () => {
    const trees = new Trees();
    const sameDocs = trees.tree([["100644", "guide.md", blob("guide")]]);
    const from = trees.tree([
      ["100644", "README.md", blob("a")],
      ["40000", "docs", sameDocs],
      ["100644", "gone.txt", blob("gone")],
      ["100644", "run.sh", blob("run")],
      [
        "40000",
        "src",
        trees.tree([
          ["100644", "a.py", blob("1")],
          ["40000", "deep", trees.tree([["100644", "b.py", blob("2")]])],
        ]),
      ],
    ]);
    const to = trees.tree([
      ["100644", "README.md", blob("b")],
      ["40000", "docs", sameDocs],
      ["100755", "run.sh", blob("run")],
      [
        "40000",
        "src",
        trees.tree([
          ["100644", "a.py", blob("1")],
          [
            "40000",
            "deep",
            trees.tree([
              ["100644", "b.py", blob("3")],
              ["100644", "new file ü.py", blob("4")],
            ]),
          ],
        ]),
      ],
    ]);
    expect(diffTrees(trees.readTree, from, to)).toEqual(["README.md", "gone.txt", "run.sh", "src/deep/b.py", "src/deep/new file ü.py"]);
    // The unchanged folder is not read.
    expect(trees.read).not.toContain(sameDocs);
  });

  it("lists every file of a folder added or deleted, and a file and a folder of one name as two paths", () => {
    const trees = new Trees();
    const tools = trees.tree([
      ["100755", "run.sh", blob("#!")],
      ["40000", "lib", trees.tree([["100644", "x.sh", blob("x")]])],
    ]);
    const from = trees.tree([
      ["100644", "tools", blob("a file")],
      ["100644", "tools.md", blob("doc")],
    ]);
    const to = trees.tree([
      ["100644", "tools.md", blob("doc")],
      ["40000", "tools", tools],
    ]);
    // git sorts a folder as its name and '/', after "tools.md" ('.' < '/').
    expect(diffTrees(trees.readTree, from, to)).toEqual(["tools", "tools/lib/x.sh", "tools/run.sh"]);
    expect(diffTrees(trees.readTree, to, from)).toEqual(["tools", "tools/lib/x.sh", "tools/run.sh"]);
    expect(diffTrees(trees.readTree, undefined, to)).toEqual(["tools.md", "tools/lib/x.sh", "tools/run.sh"]);
  });

  it("leaves out links and submodules, and counts a file that becomes a link as deleted", () => {
    const trees = new Trees();
    const from = trees.tree([
      ["120000", "link", blob("a")],
      ["160000", "vendor", "1".repeat(40)],
      ["100644", "was-file", blob("f")],
    ]);
    const to = trees.tree([
      ["120000", "link", blob("b")],
      ["160000", "vendor", "2".repeat(40)],
      ["120000", "was-file", blob("f")],
    ]);
    expect(diffTrees(trees.readTree, from, to)).toEqual(["was-file"]);
  });

  it("says which tree it lacks, and refuses a tree cut inside an entry", () => {
    const trees = new Trees();
    const missing = "3".repeat(40);
    const from = trees.tree([["40000", "src", missing]]);
    const to = trees.tree([]);
    expect(() => diffTrees(trees.readTree, from, to)).toThrow(`corrupt pack: the tree ${missing} is not in the pack`);
    const cut = "4".repeat(40);
    trees.objects.set(cut, Buffer.from("100644 a.txt\0short"));
    expect(() => diffTrees(trees.readTree, cut, to)).toThrow(`corrupt pack: the tree ${cut} ends inside an entry`);
  });

  it("gives up on a commit that changes more entries than it may walk: a tree whose folders share one subtree", () => {
    const trees = new Trees();
    // 32 folders, each holding the same 32 folders, four levels down: 32 ** 4 (a million) files in a few small trees.
    let level = trees.tree(Array.from({ length: 32 }, (_, i) => ["100644", `f${i}`, blob(String(i))] as [string, string, string]));
    for (let depth = 0; depth < 3; depth++) {
      const below = level;
      level = trees.tree(Array.from({ length: 32 }, (_, i) => ["40000", `d${i}`, below] as [string, string, string]));
    }
    let reads = 0;
    const counted = (oid: string) => (reads++, trees.readTree(oid));
    expect(diffTrees(counted, undefined, level)).toBeUndefined();
    // It stopped early: the whole walk reads 1 + 32 + 32 ** 2 + 32 ** 3 = 33,825 trees.
    expect(reads).toBeLessThan(10_000);
    // Within the limit, the same tree is listed whole.
    expect(diffTrees(trees.readTree, undefined, level, { maxEntries: 2 * 32 ** 4 })).toHaveLength(32 ** 4);
  });

  it("gives up on a tree nested deeper than git writes one, instead of overflowing the stack", () => {
    const trees = new Trees();
    let deep = trees.tree([["100644", "leaf.txt", blob("leaf")]]);
    for (let depth = 0; depth < 4000; depth++) deep = trees.tree([["40000", "d", deep]]);
    expect(diffTrees(trees.readTree, undefined, deep)).toEqual([`${"d/".repeat(4000)}leaf.txt`]);
    for (let depth = 4000; depth < 20_000; depth++) deep = trees.tree([["40000", "d", deep]]);
    expect(diffTrees(trees.readTree, undefined, deep)).toBeUndefined();
  });
});
