import { describe, expect, it } from "vitest";
import { lineCoverage } from "../../../src/eval/line-coverage.js";
import { readPatchHunks } from "../../../src/eval/read-patch-hunks.js";

/** A one-file git diff with the given hunks (header and body lines). */
function diff(path: string, ...hunks: string[]): string {
  return [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, ...hunks].join("\n") + "\n";
}

// Gold: lines 10-12 replaced by two lines; lines 20-21 replaced by one.
const gold = diff(
  "pkg/mod.py",
  "@@ -8,7 +8,6 @@ def f():",
  " a",
  " b",
  "-c10",
  "-c11",
  "-c12",
  "+n10",
  "+n11",
  " d",
  " e",
  "@@ -18,6 +17,5 @@ def g():",
  " x",
  " y",
  "-z20",
  "-z21",
  "+w20",
  " p",
  " q",
);

describe("readPatchHunks", () => {
  it("places each run of -/+ lines by old line numbers, and keeps each hunk's header and marked lines", () => {
    const changes = [
      { start: 10, end: 12, removed: ["c10", "c11", "c12"], added: ["n10", "n11"] },
      { start: 20, end: 21, removed: ["z20", "z21"], added: ["w20"] },
    ];
    const [file] = readPatchHunks(gold);
    expect(file).toMatchObject({ path: "pkg/mod.py", created: false, deleted: false, changes });
    expect(file!.hunks.map((h) => [h.header, h.oldStart, h.oldCount, h.newStart, h.changes])).toEqual([
      ["@@ -8,7 +8,6 @@", 8, 7, 8, [changes[0]]],
      ["@@ -18,6 +17,5 @@", 18, 6, 17, [changes[1]]],
    ]);
    expect(file!.hunks[1]!.lines.map((l) => l.mark + l.text)).toEqual([" x", " y", "-z20", "-z21", "+w20", " p", " q"]);
  });

  it("places an insertion after the old line it follows, and reads two changes split by a context line", () => {
    const patch = diff("a.py", "@@ -4,4 +4,6 @@", " l4", "+i1", "+i2", " l5", "-l6", "+m6", " l7");
    expect(readPatchHunks(patch)[0]!.changes).toEqual([
      { start: 4, end: 4, removed: [], added: ["i1", "i2"] },
      { start: 6, end: 6, removed: ["l6"], added: ["m6"] },
    ]);
  });

  it("reads a created file as an insertion at the top, and a removed line that starts with '--' as a line", () => {
    const created = ["diff --git a/new.py b/new.py", "new file mode 100644", "--- /dev/null", "+++ b/new.py", "@@ -0,0 +1,2 @@", "+one", "+two", ""].join("\n");
    expect(readPatchHunks(created)).toMatchObject([
      { path: "new.py", created: true, deleted: false, changes: [{ start: 0, end: 0, removed: [], added: ["one", "two"] }] },
    ]);
    const dashes = diff("s.sql", "@@ -1,2 +1,2 @@", "--- a comment", "+++ b comment", " keep");
    expect(readPatchHunks(dashes)).toHaveLength(1);
    expect(readPatchHunks(dashes)[0]!.changes).toEqual([{ start: 1, end: 1, removed: ["-- a comment"], added: ["++ b comment"] }]);
  });
});

describe("lineCoverage (MAGIS Eq. 1)", () => {
  it("is 1 for the gold patch itself and for a patch that changes the same lines differently", () => {
    expect(lineCoverage(gold, gold)).toBe(1);
    const same = diff("pkg/mod.py", "@@ -10,3 +10,1 @@", "-c10", "-c11", "-c12", "+other", "@@ -20,2 +18,2 @@", "-z20", "-z21", "+o1", "+o2");
    expect(lineCoverage(gold, same)).toBe(1);
  });

  it("counts a partly overlapping hunk by the lines it shares: 10-12 and 20-21 (5 lines) against 11-15 and 21-21", () => {
    // Generated: old lines 11-15 (covers 11, 12 of the gold's first range) and 21 (covers 21 of its second): 3 of 5.
    const partial = diff("pkg/mod.py", "@@ -11,5 +11,1 @@", "-c11", "-c12", "-d", "-e", "-f", "+g", "@@ -21,1 +17,1 @@", "-z21", "+v");
    expect(lineCoverage(gold, partial)).toBeCloseTo(3 / 5, 10);
  });

  it("never counts a gold line twice when two generated changes overlap one gold range", () => {
    const two = diff("pkg/mod.py", "@@ -9,2 +9,1 @@", "-b", "-c10", "+x", "@@ -12,1 +11,1 @@", "-c12", "+y");
    // Covers 10 and 12 of 10-12, none of 20-21: 2 of 5.
    expect(lineCoverage(gold, two)).toBeCloseTo(2 / 5, 10);
  });

  it("is 0 for a change elsewhere in the file or in another file", () => {
    expect(lineCoverage(gold, diff("pkg/mod.py", "@@ -30,1 +30,1 @@", "-u", "+v"))).toBe(0);
    expect(lineCoverage(gold, diff("pkg/other.py", "@@ -10,3 +10,1 @@", "-c10", "-c11", "-c12", "+x"))).toBe(0);
    expect(lineCoverage(gold, "")).toBe(0);
  });

  it("counts an added-only gold hunk as the line it follows: covered by an insertion there or a change of that line", () => {
    // Gold inserts two lines after old line 4, and replaces line 6: ranges {4} and {6}.
    const added = diff("a.py", "@@ -4,4 +4,6 @@", " l4", "+i1", "+i2", " l5", "-l6", "+m6", " l7");
    expect(lineCoverage(added, diff("a.py", "@@ -4,0 +5,1 @@", "+other"))).toBe(1 / 2);
    expect(lineCoverage(added, diff("a.py", "@@ -4,1 +4,2 @@", "-l4", "+l4 changed", "+more"))).toBe(1 / 2);
    // After line 5 instead of line 4: a different place.
    expect(lineCoverage(added, diff("a.py", "@@ -5,0 +6,1 @@", "+other"))).toBe(0);
    expect(lineCoverage(added, added)).toBe(1);
  });

  it("does not count a line the generated patch leaves as it was: an insertion beside a gold line covers nothing", () => {
    const replaced = diff("a.py", "@@ -5,1 +5,1 @@", "-l5", "+m5");
    expect(lineCoverage(replaced, diff("a.py", "@@ -5,0 +6,1 @@", "+after"))).toBe(0);
    expect(lineCoverage(replaced, diff("a.py", "@@ -4,0 +5,1 @@", "+before"))).toBe(0);
    expect(lineCoverage(replaced, diff("a.py", "@@ -5,1 +5,2 @@", "-l5", "+m5", "+more"))).toBe(1);
  });

  it("counts a gold line once when two sections of the generated patch change it", () => {
    const twice = diff("pkg/mod.py", "@@ -10,2 +10,1 @@", "-c10", "-c11", "+x") + diff("pkg/mod.py", "@@ -11,2 +11,1 @@", "-c11", "-c12", "+y");
    // 10, 11 and 12 of the gold's five lines.
    expect(lineCoverage(gold, twice)).toBeCloseTo(3 / 5, 10);
  });

  it("counts a created file as line 1 of it, and is null when the gold patch changes nothing", () => {
    const created = ["--- /dev/null", "+++ b/new.py", "@@ -0,0 +1,2 @@", "+one", "+two", ""].join("\n");
    expect(lineCoverage(created, created)).toBe(1);
    expect(lineCoverage(created, "")).toBe(0);
    expect(lineCoverage("", created)).toBeNull();
  });
});
