import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { placeGoldPatch } from "../../../src/eval/oracle/place-gold-hunks.js";
import type { PatchFile } from "../../../src/eval/read-patch-hunks.js";
import { gitEnv } from "../../support/git-server.js";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-place-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A function of the file, numbered so that every line is unique unless a test repeats one on purpose. */
const fn = (name: string) => [`def ${name}():`, `    a = "${name} 1"`, `    b = "${name} 2"`, `    return a + b`, ""];
const lines = (...names: string[]) => names.flatMap(fn);

/** A gold patch of m.py with these hunks (header and body lines). */
const patchOf = (...hunks: string[][]) => ["diff --git a/m.py b/m.py", "--- a/m.py", "+++ b/m.py", ...hunks.flat(), ""].join("\n");

let case_ = 0;
/** What real `git apply -v` does with the patch on the base: the file it leaves (null: refused) and each hunk's reported offset. */
function gitApply(base: string[], patch: string): { after: string | null; offsets: Record<number, number>; stderr: string } {
  const dir = path.join(work, `case-${case_++}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "m.py"), base.join("\n") + "\n");
  const run = spawnSync("git", ["apply", "-v", "-"], { cwd: dir, input: patch, env: { ...gitEnv(), GIT_CEILING_DIRECTORIES: work }, encoding: "utf8" });
  const offsets = Object.fromEntries(
    [...run.stderr.matchAll(/Hunk #(\d+) succeeded at \d+ \(offset (-?\d+) lines?\)/g)].map((m) => [Number(m[1]), Number(m[2])]),
  );
  return { after: run.status === 0 ? fs.readFileSync(path.join(dir, "m.py"), "utf8") : null, offsets, stderr: run.stderr };
}

/** The base with the placed changes made, bottom up. */
function applyPlaced(base: string[], file: PatchFile): string {
  const out = [...base];
  for (const c of [...file.changes].reverse()) out.splice(c.removed.length > 0 ? c.start - 1 : c.start, c.removed.length, ...c.added);
  return out.join("\n") + "\n";
}

/** Places the patch on the base file as the oracle does, and checks it against real `git apply` on the same input. */
function placeLikeGit(base: string[], patch: string) {
  fs.writeFileSync(path.join(work, "m.py"), base.join("\n") + "\n");
  const placed = placeGoldPatch(patch, work);
  const git = gitApply(base, patch);
  const refused = placed.refused.get("m.py");
  expect(refused === undefined, `ours: ${refused ?? "placed"}; git: ${git.stderr}`).toBe(git.after !== null);
  if (git.after !== null) {
    expect(applyPlaced(base, placed.files[0]!)).toBe(git.after);
    expect(Object.fromEntries(placed.offsets.map((o) => [o.hunk, o.offset]))).toEqual(git.offsets);
  }
  return placed;
}

// The tree the gold patch was made on: five functions. Hunk 1 changes b(), hunk 2 changes d().
const TREE = lines("a", "b", "c", "d", "e");
const HUNK_B = ["@@ -7,3 +7,3 @@", '     a = "b 1"', '-    b = "b 2"', '+    b = "B 2"', "     return a + b"];
const HUNK_D = ["@@ -17,3 +17,3 @@", '     a = "d 1"', '-    b = "d 2"', '+    b = "D 2"', "     return a + b"];

describe("placeGoldPatch, checked against git apply", () => {
  it("places hunks at their headers on the tree they were made on", () => {
    expect(placeLikeGit(TREE, patchOf(HUNK_B, HUNK_D)).offsets).toEqual([]);
  });

  it("finds a hunk a few lines off its header, as git apply does", () => {
    // The base has two more lines at the top than the gold's tree.
    const placed = placeLikeGit(["# one", "# two", ...TREE], patchOf(HUNK_B));
    expect(placed.offsets).toEqual([{ file: "m.py", hunk: 1, offset: 2 }]);
    expect(placed.files[0]!.changes).toEqual([{ start: 10, end: 10, removed: ['    b = "b 2"'], added: ['    b = "B 2"'] }]);
  });

  it("places several hunks of one file with different offsets", () => {
    // Three lines more before b(), then c() gone: hunk 1 lands 3 lines lower, hunk 2 two lines higher.
    const base = ["# 1", "# 2", "# 3", ...lines("a", "b", "d", "e")];
    const placed = placeLikeGit(base, patchOf(HUNK_B, HUNK_D));
    expect(placed.offsets).toEqual([
      { file: "m.py", hunk: 1, offset: 3 },
      { file: "m.py", hunk: 2, offset: -2 },
    ]);
    expect(placed.files[0]!.changes.map((c) => c.start)).toEqual([11, 16]);
  });

  it("takes the nearest match, the one after before the one before at equal distance", () => {
    // The hunk's lines are in x() at lines 3-4 and in y() at 11-12.
    const twin = (name: string) => [`def ${name}():`, "    pass", "    x = 1", "    return x", "", "", ""];
    const base = [...twin("x"), "# between", ...twin("y")];
    const at = (line: number) => patchOf([`@@ -${line},2 +${line},2 @@`, "-    x = 1", "+    x = 2", "     return x"]);
    // From line 7, both are 4 away: git looks at 7, 8, 6, 9, 5, … and finds y() first.
    expect(placeLikeGit(base, at(7)).offsets).toEqual([{ file: "m.py", hunk: 1, offset: 4 }]);
    // From line 6, x() is 3 away and y() 5.
    expect(placeLikeGit(base, at(6)).offsets).toEqual([{ file: "m.py", hunk: 1, offset: -3 }]);
  });

  it("holds a hunk at line 1 to the top and one without trailing context to the end, and refuses, naming it, a hunk found nowhere", () => {
    const top = ["@@ -1,3 +1,3 @@", " def a():", '-    a = "a 1"', '+    a = "A 1"', '     b = "a 2"'];
    expect(placeLikeGit(TREE, patchOf(top)).refused.size).toBe(0);
    expect(placeLikeGit(["# moved", ...TREE], patchOf(top)).refused.get("m.py")).toBe(
      "hunk 1 of m.py (@@ -1,3 +1,3 @@) is not in the base file: its context and removed lines are found nowhere, as git apply would find them",
    );
    const end = ["@@ -24,2 +24,1 @@", "     return a + b", "-"];
    expect(placeLikeGit(TREE, patchOf(end)).refused.size).toBe(0);
    expect(placeLikeGit([...TREE, "# after"], patchOf(end)).refused.size).toBe(1);
    const nowhere = ["@@ -7,2 +7,2 @@", '     a = "q 1"', '-    b = "q 2"', '+    b = "Q 2"'];
    expect(placeLikeGit(TREE, patchOf(HUNK_B, nowhere)).refused.get("m.py")).toMatch(/^hunk 2 of m\.py \(@@ -7,2 \+7,2 @@\) is not in the base file/);
  });
});
