import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AFTER, BEFORE, GOLD } from "./blank-line-gold.js";
import { parseConfig } from "../../../src/config.js";
import { makeDiff } from "../../../src/edit/make-diff.js";
import { compareToGold } from "../../../src/eval/compare-to-gold.js";
import { explainLosses } from "../../../src/eval/oracle/explain-losses.js";
import type { BenchInstance } from "../../../src/eval/read-instances.js";
import { inputFailureResult, type InstanceRun } from "../../../src/eval/run-eval-instance.js";
import type { ResolveResult, TaskOutcome } from "../../../src/pipeline/types.js";

const instance: BenchInstance = { instance_id: "x__y-1", repo: "x/y", base_commit: "c", problem_statement: "t", patch: GOLD, gold_files: ["m.py"] };
const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-losses-"));
fs.writeFileSync(path.join(work, "m.py"), BEFORE);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A run that located and kept m.py and ended with this outcome for it, its patch measured against `gold` as eval measures it. */
async function runWith(outcome: Partial<TaskOutcome>, result: Partial<InstanceRun["result"]> = {}, gold = GOLD): Promise<InstanceRun> {
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
    patch: task.diff,
    trace: [],
    resolved: { outcomes: [task], setAside: [] } as unknown as ResolveResult,
    config: parseConfig({}),
    checkout: work,
    comparison: await compareToGold(work, gold, Buffer.from(task.diff)),
  };
}

const causes = async (run: Promise<InstanceRun>, gold = instance) => explainLosses(gold, await run).losses.map((l) => [l.by, l.cause]);

describe("explainLosses", () => {
  it("finds nothing lost when the file is the gold one, however the diff library aligns its blank lines", async () => {
    const diff = makeDiff("m.py", BEFORE, AFTER);
    // jsdiff removes lines 4-5 where git removed 3-4: by the hunks as given, half the gold lines for the very same file.
    expect(diff).toContain("+        hooks.append(hook)\n \n-    hooks.append(hook)\n-\n");
    const run = await runWith({ diff, after: AFTER });
    expect(run.comparison).toEqual({ coverage: 1, files: [{ path: "m.py", same: true, coverage: 1 }] });
    expect(explainLosses(instance, run)).toEqual({ losses: [], offsets: [] });
  });

  it("names a refused edit, a refused syntax, a change elsewhere, other text at the gold lines, and a patch that does not apply", async () => {
    const refused = (error: string) => runWith({ kept: false, approved: false, attempts: [{ number: 1, error }] });
    expect(await causes(refused("your edits could not be applied: Edit 1 …"))).toEqual([["pipeline", "edit-refused"]]);
    expect(await causes(refused("your change adds syntax errors that `m.py` did not have (…)"))).toEqual([["pipeline", "syntax-refused"]]);
    const elsewhere = BEFORE.replace("    pass", "    return None");
    expect(explainLosses(instance, await runWith({ diff: makeDiff("m.py", BEFORE, elsewhere), after: elsewhere })).losses).toEqual([
      { cause: "misplaced", by: "pipeline", file: "m.py", detail: "the kept change covers 0 % of the gold lines" },
    ]);
    const reworded = AFTER.replace("if hook:", "if hook is not None:");
    expect(await causes(runWith({ diff: makeDiff("m.py", BEFORE, reworded), after: reworded }))).toEqual([["pipeline", "changed-text"]]);
    expect(await causes(runWith({ diff: makeDiff("m.py", BEFORE, AFTER), after: AFTER }, { applies: false }))).toEqual([["pipeline", "not-applied"]]);
  });

  it("charges a run stopped by a failed call to the oracle to the instrument, not to the stage it stopped", async () => {
    const reason = 'The custodian call with prompt "custodian-judge-relevance" (model oracle) failed: could not reach http://127.0.0.1:1/x/v1 (1 try)';
    const stopped = { ...(await runWith({})), resolved: null };
    stopped.result = { ...stopped.result, kept: [], patch: false, applies: null, failure: { stage: "locate", reason } };
    expect(explainLosses(instance, stopped).losses).toEqual([{ cause: "oracle-unanswered", by: "instrument", file: "m.py", detail: reason }]);
    stopped.result.failure = { stage: "locate", reason: "the Custodian judged none of the 10 best-matching files relevant" };
    expect(explainLosses(instance, stopped).losses).toEqual([
      { cause: "not-kept", by: "pipeline", file: "m.py", detail: "the relevance check dropped it although the oracle judged it relevant" },
    ]);
  });

  it("tells a file over the size cap from one BM25 did not rank", async () => {
    fs.writeFileSync(path.join(work, "m.py"), "x".repeat(600 * 1024));
    expect(explainLosses(instance, await runWith({}, { located: ["n.py"], kept: ["n.py"] })).losses[0]).toMatchObject({ cause: "size-cap", by: "pipeline" });
    fs.writeFileSync(path.join(work, "m.py"), BEFORE);
    expect(explainLosses(instance, await runWith({}, { located: ["n.py"], kept: ["n.py"] })).losses[0]).toEqual({
      cause: "not-located",
      by: "pipeline",
      file: "m.py",
      detail: "BM25 did not rank it among the top 10 files",
    });
  });

  it("counts a gold hunk git finds off its header, and charges a hunk that is nowhere in the file to the instrument, naming it", async () => {
    const off = GOLD.replace("@@ -1,6 +1,6 @@", "@@ -3,5 +3,5 @@").replace(" def register(hook):\n", "");
    const shifted = { ...instance, patch: off };
    // Without its first line (so it need not match at the top), the hunk's context starts at line 2, one above its header.
    expect(explainLosses(shifted, await runWith({ diff: makeDiff("m.py", BEFORE, AFTER), after: AFTER }, {}, off))).toEqual({
      losses: [],
      offsets: [{ file: "m.py", hunk: 1, offset: -1 }],
    });
    const nowhere = GOLD.replace(" def other():", " def another():");
    const run = await runWith({ diff: makeDiff("m.py", BEFORE, AFTER), after: AFTER }, {}, nowhere);
    expect(explainLosses({ ...instance, patch: nowhere }, run).losses).toEqual([
      {
        cause: "gold-not-placed",
        by: "instrument",
        file: "m.py",
        detail: "hunk 1 of m.py (@@ -1,6 +1,6 @@) is not in the base file: its context and removed lines are found nowhere, as git apply would find them",
      },
      {
        cause: "gold-not-applied",
        by: "instrument",
        file: "",
        detail: "git apply refused the gold patch on the base files: Eq. 1 was read from the hunks as given",
      },
    ]);
  });
});
