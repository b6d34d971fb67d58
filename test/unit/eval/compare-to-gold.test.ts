import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AFTER, BEFORE, GOLD } from "./blank-line-gold.js";
import { makeDiff } from "../../../src/edit/make-diff.js";
import { compareToGold } from "../../../src/eval/compare-to-gold.js";
import { lineCoverage } from "../../../src/eval/line-coverage.js";

const checkout = fs.mkdtempSync(path.join(os.tmpdir(), "magis-compare-"));
fs.writeFileSync(path.join(checkout, "m.py"), BEFORE);
afterAll(() => fs.rmSync(checkout, { recursive: true, force: true }));

const jsdiff = (after: string) => Buffer.from(makeDiff("m.py", BEFORE, after));

describe("compareToGold (MAGIS Eq. 1 as git aligns it)", () => {
  it("is 100 % for a patch that leaves the gold file, where the diff library aligns the blank line elsewhere than git", async () => {
    // jsdiff removes lines 4-5 where git removes 3-4: read by its hunks, half the gold lines.
    expect(jsdiff(AFTER).toString()).toContain("+        hooks.append(hook)\n \n-    hooks.append(hook)\n-\n");
    expect(lineCoverage(GOLD, jsdiff(AFTER).toString())).toBe(0.5);
    expect(await compareToGold(checkout, GOLD, jsdiff(AFTER))).toEqual({ coverage: 1, files: [{ path: "m.py", same: true, coverage: 1 }] });
  });

  it("reads a different result by git's alignment of both changes, not by the diff library's", async () => {
    // The same lines changed to other text: git's diffs of both results remove lines 3-4, so every gold line is covered.
    const reworded = AFTER.replace("if hook:", "if hook is not None:");
    expect(lineCoverage(GOLD, jsdiff(reworded).toString())).toBe(0.5);
    expect(await compareToGold(checkout, GOLD, jsdiff(reworded))).toEqual({ coverage: 1, files: [{ path: "m.py", same: false, coverage: 1 }] });
    // Only the blank line removed: git aligns it with the gold's line 3, one of its two lines.
    const blankOnly = BEFORE.replace('"""Register."""\n\n', '"""Register."""\n');
    expect(await compareToGold(checkout, GOLD, jsdiff(blankOnly))).toEqual({ coverage: 0.5, files: [{ path: "m.py", same: false, coverage: 0.5 }] });
    // Elsewhere in the file: nothing covered.
    const elsewhere = BEFORE.replace("    pass", "    return None");
    expect((await compareToGold(checkout, GOLD, jsdiff(elsewhere))).coverage).toBe(0);
  });

  it("reads the hunks as given, and says why, without a patch or when git cannot apply one", async () => {
    expect(await compareToGold(checkout, GOLD, Buffer.alloc(0))).toEqual({ coverage: 0, files: null, asGiven: "no patch" });
    expect(await compareToGold(null, GOLD, Buffer.from(GOLD))).toEqual({ coverage: 1, files: null, asGiven: "no checkout" });
    const stale = GOLD.replace(" def other():", " def another():");
    expect(await compareToGold(checkout, stale, jsdiff(AFTER))).toMatchObject({ files: null, asGiven: "git apply refused the gold patch" });
    expect(await compareToGold(checkout, GOLD, Buffer.from(stale))).toMatchObject({ files: null, asGiven: "git apply refused the patch" });
  });
});
