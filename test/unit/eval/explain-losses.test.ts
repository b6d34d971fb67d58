import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { makeDiff } from "../../../src/edit/make-diff.js";
import { explainLosses } from "../../../src/eval/oracle/explain-losses.js";
import type { BenchInstance } from "../../../src/eval/read-instances.js";
import { inputFailureResult, type InstanceRun } from "../../../src/eval/run-eval-instance.js";
import type { ResolveResult, TaskOutcome } from "../../../src/pipeline/types.js";

const BEFORE = 'def register(hook):\n    """Register."""\n\n    hooks.append(hook)\n\ndef other():\n    pass\n';
// The gold removes the blank line 3 and line 4; git's diff puts the removed blank line first.
const GOLD = [
  "diff --git a/m.py b/m.py",
  "--- a/m.py",
  "+++ b/m.py",
  "@@ -1,6 +1,6 @@",
  " def register(hook):",
  '     """Register."""',
  "-",
  "-    hooks.append(hook)",
  "+    if hook:",
  "+        hooks.append(hook)",
  " ",
  " def other():",
  "",
].join("\n");
const AFTER = 'def register(hook):\n    """Register."""\n    if hook:\n        hooks.append(hook)\n\ndef other():\n    pass\n';
const instance: BenchInstance = { instance_id: "x__y-1", repo: "x/y", base_commit: "c", problem_statement: "t", patch: GOLD, gold_files: ["m.py"] };
const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-losses-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A run that located and kept m.py and ended with this outcome for it. */
function runWith(outcome: Partial<TaskOutcome>, result: Partial<InstanceRun["result"]> = {}): InstanceRun {
  const base = { ...inputFailureResult("x__y-1", "x/y", ""), failure: null, located: ["m.py"], kept: ["m.py"], patch: true, applies: true, ...result };
  const task = {
    path: "m.py",
    attempts: [],
    approved: true,
    kept: true,
    diff: "",
    before: BEFORE,
    after: BEFORE,
    encoding: "utf-8",
    ...outcome,
  } as TaskOutcome;
  return {
    result: base,
    patch: "",
    trace: [],
    resolved: { outcomes: [task], setAside: [] } as unknown as ResolveResult,
    config: parseConfig({}),
    checkout: work,
  };
}

describe("explainLosses", () => {
  it("finds nothing lost when the file is the gold one, and 'same text, other diff' when only the diff's alignment differs", () => {
    const diff = makeDiff("m.py", BEFORE, AFTER);
    expect(diff).not.toBe(GOLD);
    // jsdiff removes lines 4-5 where git removed 3-4: half the gold lines by Eq. 1, for the very same file.
    expect(diff).toContain("+        hooks.append(hook)\n \n-    hooks.append(hook)\n-\n");
    expect(explainLosses(instance, runWith({ diff, after: AFTER }))).toEqual([
      {
        cause: "same-text-other-diff",
        file: "m.py",
        detail: "the file is exactly as the gold patch leaves it, but the diff aligns blank lines differently, so Eq. 1 counts 50 %",
      },
    ]);
    expect(explainLosses(instance, runWith({ diff: GOLD, after: AFTER }))).toEqual([]);
  });

  it("names a refused edit, a refused syntax, a change elsewhere, and a patch that does not apply", () => {
    const refused = (error: string) => runWith({ kept: false, approved: false, attempts: [{ number: 1, error }] });
    expect(explainLosses(instance, refused("your edits could not be applied: Edit 1 …"))[0]!.cause).toBe("edit-refused");
    expect(explainLosses(instance, refused("your change adds syntax errors that `m.py` did not have (…)"))[0]!.cause).toBe("syntax-refused");
    const elsewhere = 'def register(hook):\n    """Register."""\n\n    hooks.append(hook)\n\ndef other():\n    return None\n';
    expect(explainLosses(instance, runWith({ diff: makeDiff("m.py", BEFORE, elsewhere), after: elsewhere }))).toEqual([
      { cause: "misplaced", file: "m.py", detail: "the kept change covers 0 % of the gold lines" },
    ]);
    expect(explainLosses(instance, runWith({ diff: GOLD, after: AFTER }, { applies: false })).map((l) => l.cause)).toEqual(["not-applied"]);
  });

  it("tells a file over the size cap from one BM25 did not rank", () => {
    fs.writeFileSync(path.join(work, "m.py"), "x".repeat(600 * 1024));
    expect(explainLosses(instance, runWith({}, { located: ["n.py"], kept: ["n.py"] }))[0]).toMatchObject({ cause: "size-cap" });
    fs.writeFileSync(path.join(work, "m.py"), BEFORE);
    expect(explainLosses(instance, runWith({}, { located: ["n.py"], kept: ["n.py"] }))[0]).toEqual({
      cause: "not-located",
      file: "m.py",
      detail: "BM25 did not rank it among the top 10 files",
    });
  });
});
