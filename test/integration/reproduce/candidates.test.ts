import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedModelOptions } from "../../support/scripted-model.js";
import { startResolveRig, type ResolveRig } from "../resolve/run-resolve.js";
import { asked, FIX, MEAN_FILES, MEAN_ISSUE, scriptMean } from "./script-mean.js";

let rig: ResolveRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

// A regression test the mean repository keeps: the mean of [2, 4] is 3.
const TESTED_FILES = {
  ...MEAN_FILES,
  "test.mjs": 'import { mean } from "./src/stats.js";\nif (mean([2, 4]) !== 3) {\n  console.error("mean([2, 4]) is not 3");\n  process.exit(1);\n}\n',
};
// FIX with other spacing and a comment: the same change once normalized.
const FIX_REFORMATTED = "  return values.length===0 ? 0 : sum/values.length; // the empty list's mean is 0";
// Passes the reproduction, breaks the regression test.
const BREAKS_TEST = "  return 0;";
const OTHER_FIX = "  return values.length > 0 ? sum / values.length : 0;";

async function meanRig(config: string, files: Record<string, string> = MEAN_FILES, model: ScriptedModelOptions = {}): Promise<ResolveRig> {
  rig = await startResolveRig({ issue: MEAN_ISSUE, files: { ...files, ".github/magis.yml": config }, model });
  return rig;
}

/** The `n` of each request for a prompt (undefined: one answer asked). */
const nOf = (r: ResolveRig, prompt: string) => r.model.requests.filter((q) => q.prompt === prompt).map((q) => q.body.n);

const read = (r: ResolveRig, file: string) => fs.readFileSync(path.join(r.out, file), "utf8");

describe("several candidates per attempt: normalized, grouped, filtered by behaviour, selected", () => {
  it.each([
    // A server that honours `n` answers the three candidates' ranges in one request, and their code in one more.
    ["honours n", false, [3], [3]],
    // One that ignores it answers one; the other two are asked one by one.
    ["ignores n", true, [3, undefined, undefined], [3, undefined, undefined]],
  ])(
    "groups two candidates that differ only in formatting (two votes) and filters out the one that breaks a test (a server that %s)",
    async (_, ignoreN, locate, write) => {
      const r = await meanRig("candidates: 3\ntest_command: node test.mjs\n", TESTED_FILES, { ignoreN });
      scriptMean(r.model, { fixes: [FIX, FIX_REFORMATTED, BREAKS_TEST] });
      const run = await r.resolve();
      expect(r.model.problems).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      expect(nOf(r, "developer-locate-lines")).toEqual(locate);
      expect(nOf(r, "developer-write-code")).toEqual(write);
      expect(run.stderr).toContain("src/stats.js: attempt 1 (3 candidates, 2 groups, the chosen one had 2 votes; tests: ");
      // One survivor: no selection is asked for; it goes to today's review.
      expect(asked(r.model, "qa-select-candidate")).toEqual([]);
      expect(asked(r.model, "qa-review")).toHaveLength(1);
      expect(read(r, "patch.diff")).toContain(`+${FIX}`);
      const text = read(r, "report.md");
      expect(text).toContain("<summary>Candidates of attempt 1</summary>");
      expect(text).toContain("3 candidates: 3 gave a change, in 2 groups once normalized.");
      expect(text).toContain("- Group 1 (candidates 1, 2; 2 votes) — **chosen**.");
      expect(text).toContain("- Group 2 (candidates 3; 1 vote) — out: ");
      expect(text).toContain(`+${BREAKS_TEST}`);
      expect(text).toContain("Why the chosen group: the only group that breaks no passing test.");
      // The usage table counts requests, however many answers each brought.
      expect(text).toMatch(new RegExp(`\\| \\*\\*total\\*\\* \\| +\\| ${r.model.requests.length} \\|`));
    },
  );

  it("breaks a tie of votes with the QA Engineer's selection, which sees each group's diff, votes and reproduction run", async () => {
    const r = await meanRig("candidates: 1\n");
    scriptMean(r.model, { fixes: [FIX, OTHER_FIX] });
    r.model.script("qa-select-candidate", { change: 2, reason: "It reads the guard first." });
    // The flag wins over the file.
    const run = await r.resolve(["--candidates", "2"]);
    expect(r.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    const selection = asked(r.model, "qa-select-candidate");
    expect(selection).toHaveLength(1);
    expect(selection[0]).toContain("### Change 1: 1 vote; the tests did not run; the reproduction passed (exit 0)");
    expect(selection[0]).toContain(`+${OTHER_FIX}`);
    expect(read(r, "patch.diff")).toContain(`+${OTHER_FIX}`);
    // The reason's own period is the sentence's end: not "first..".
    expect(read(r, "report.md")).toContain("Why the chosen group: the QA Engineer selected it: It reads the guard first.\n");
  });

  it("lets the votes decide when the QA Engineer names no change, or one that is not shown, and says so", async () => {
    for (const [answer, why] of [
      [{ change: null, reason: "I cannot tell them apart." }, "the votes decided (the QA Engineer named no change)."],
      [{ change: 7, reason: "Change 7 is best." }, "the votes decided (the QA Engineer named change 7, which is not among the 2 shown)."],
    ] as const) {
      const r = await meanRig("candidates: 3\n");
      scriptMean(r.model, { fixes: [OTHER_FIX, FIX, FIX_REFORMATTED] });
      r.model.script("qa-select-candidate", answer);
      const run = await r.resolve();
      expect(r.model.problems).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      expect(asked(r.model, "qa-select-candidate")).toHaveLength(1);
      // Group 1 has candidates 2 and 3 (two votes) and goes to review; group 2 has the first candidate.
      expect(read(r, "patch.diff")).toContain(`+${FIX}`);
      const text = read(r, "report.md");
      expect(text).toContain("- Group 1 (candidates 2, 3; 2 votes) — **chosen**.");
      expect(text).toContain("- Group 2 (candidates 1; 1 vote) — not chosen.");
      expect(text).toContain(`Why the chosen group: ${why}\n`);
      await r.close();
      rig = undefined;
    }
  });

  it("fails an attempt none of whose candidates gives a change, with each reason, and runs the next attempt", async () => {
    const r = await meanRig("candidates: 2\n");
    const wrongAnchor = { old: "  return total / count;", new: FIX };
    scriptMean(r.model, { fixes: [wrongAnchor, "  return (sum / values.length;", FIX, FIX_REFORMATTED] });
    const run = await r.resolve();
    expect(r.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    const locate = asked(r.model, "developer-locate-lines");
    expect(nOf(r, "developer-locate-lines")).toEqual([2, 2]);
    // The second attempt's candidates are told why the first failed; no review or selection was asked of the first.
    expect(locate[1]).toContain("Your attempt 1 was refused: none of the 2 candidates gave a change (candidate 1: your edits could not be applied: ");
    expect(locate[1]).toContain("; candidate 2: your change adds syntax errors that `src/stats.js` did not have");
    expect(asked(r.model, "qa-review")).toHaveLength(1);
    expect(asked(r.model, "qa-select-candidate")).toEqual([]);
    expect(read(r, "patch.diff")).toContain(`+${FIX}`);
    const text = read(r, "report.md");
    expect(text).toContain("- **Attempt 1** — refused before review: none of the 2 candidates gave a change (candidate 1: your edits could not be applied: ");
    expect(text).toContain("2 candidates: 0 gave a change, in 0 groups once normalized; 2 dropped.");
    expect(text).toContain("2 candidates: 2 gave a change, in 1 group once normalized.");
    expect(run.stderr).toContain("src/stats.js: attempt 2 (2 candidates, 1 group, the chosen one had 2 votes");
  });

  it("sends no group to review when every group breaks passing tests: the attempt fails with each group's breakage", async () => {
    const r = await meanRig("candidates: 3\ntest_command: node test.mjs\n", TESTED_FILES);
    const wrongAnchor = { old: "  return total / count;", new: FIX };
    scriptMean(r.model, { fixes: [BREAKS_TEST, "  return sum;", wrongAnchor, FIX, FIX_REFORMATTED, FIX] });
    const run = await r.resolve();
    expect(r.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    // Only the second attempt's change was reviewed; the first attempt's breakage went back to the Developer.
    expect(asked(r.model, "qa-review")).toHaveLength(1);
    expect(asked(r.model, "qa-select-candidate")).toEqual([]);
    const locate = asked(r.model, "developer-locate-lines");
    expect(nOf(r, "developer-locate-lines")).toEqual([3, 3]);
    expect(locate[1]).toContain(
      "Your attempt 1 was refused: each of the 2 candidates that gave a change breaks tests that passed before (group 1 (candidate 1): ",
    );
    expect(locate[1]).toContain("; group 2 (candidate 2): ");
    expect(locate[1]).toContain("; the other 1 gave none (candidate 3: your edits could not be applied: ");
    expect(read(r, "patch.diff")).toContain(`+${FIX}`);
    expect(read(r, "patch.diff")).not.toContain(BREAKS_TEST);
    const text = read(r, "report.md");
    expect(text).toContain("- **Attempt 1** — refused before review: each of the 2 candidates that gave a change breaks tests that passed before");
    expect(text).toMatch(/- Group 1 \(candidates 1; 1 vote\) — out: .+\n/);
    expect(text).toMatch(/- Group 2 \(candidates 2; 1 vote\) — out: .+\n/);
    expect(text).toContain("No group chosen: every group breaks tests that passed before.");
  });

  it("drops a candidate whose edit does not apply, with its reason, and reviews the other", async () => {
    const r = await meanRig("candidates: 2\n");
    scriptMean(r.model, { fixes: [{ old: "  return total / count;", new: FIX }, FIX] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    const text = read(r, "report.md");
    expect(text).toContain("2 candidates: 1 gave a change, in 1 group once normalized; 1 dropped.");
    expect(text).toMatch(/- Candidate 1 dropped: your edits could not be applied: /);
    expect(read(r, "patch.diff")).toContain(`+${FIX}`);
  });

  it("refuses candidates the token budget cannot hold before any of their calls is sent, with the budget message", async () => {
    const r = await meanRig("candidates: 8\ntoken_budget: 20000\n");
    scriptMean(r.model);
    const run = await r.resolve();
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("the 8 requests for developer-locate-lines (one per candidate, `candidates: 8`) would take about");
    expect(run.stderr).toContain("Lower candidates, or raise token_budget");
    expect(asked(r.model, "developer-locate-lines")).toEqual([]);
  });

  it("with candidates: 1 asks for one change and writes the report of a run without the setting, byte for byte (wall times aside)", async () => {
    const reports: string[] = [];
    for (const config of ["# candidates: 1 (a comment: the default)\n", "candidates: 1 # (a comment: the default)\n"]) {
      const r = await meanRig(config);
      scriptMean(r.model);
      const run = await r.resolve();
      expect(run.code, run.stderr).toBe(0);
      expect(asked(r.model, "developer-locate-lines")).toHaveLength(1);
      reports.push(read(r, "report.md").replace(/\d+(\.\d+)? ?(ms|s)\b/g, "<time>"));
      await r.close();
      rig = undefined;
    }
    expect(reports[1]).toBe(reports[0]);
    expect(reports[0]).not.toContain("Candidates of attempt");
  });

  it("refuses a --candidates flag out of its bounds, naming it", async () => {
    const r = await meanRig("");
    const run = await r.resolve(["--candidates", "9"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--candidates");
    expect(r.model.requests).toEqual([]);
  });
});
