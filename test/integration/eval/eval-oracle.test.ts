import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDiff } from "../../../src/edit/make-diff.js";
import { lineCoverage } from "../../../src/eval/line-coverage.js";
import { GOLD, instanceLines, readLines, startEvalRig, type EvalRig } from "./eval-rig.js";

const CREATE = [
  "diff --git a/greet/bye.py b/greet/bye.py",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/greet/bye.py",
  "@@ -0,0 +1,2 @@",
  "+def bye(name):",
  '+    return "bye " + name',
  "",
].join("\n");

// The menu at the base commit. Its gold patch below was made on a tree without lines 3-5 and with four more lines
// before total(), so git finds its first hunk 3 lines below its header and its second 1 above.
const MENU = [
  '"""The menu of the cafe."""',
  "",
  "# Prices are in euros.",
  "# Kept in one place.",
  "",
  "def drinks():",
  '    """Hot drinks."""',
  "",
  '    return ["coffee", "tea"]',
  "",
  "",
  "def snacks():",
  '    return ["cake"]',
  "",
  "",
  "def total(items):",
  "    return sum(PRICES[i] for i in items)",
  "",
].join("\n");
const MENU_AFTER = MENU.replace(
  '\n    """Hot drinks."""\n\n    return ["coffee", "tea"]\n',
  '\n    """Hot drinks."""\n    hot = ["coffee", "tea"]\n    return hot\n',
).replace("    return sum(PRICES[i] for i in items)", "    return round(sum(PRICES[i] for i in items), 2)");
const menuPatch = (...hunks: string[]) => ["diff --git a/greet/menu.py b/greet/menu.py", "--- a/greet/menu.py", "+++ b/greet/menu.py", ...hunks, ""].join("\n");
// Hunk 1 removes a blank line and the line after it, which the diff library aligns elsewhere than git; hunk 2 has no
// trailing context, so it must match at the end of the file.
const OFFSET = menuPatch(
  "@@ -3,5 +3,5 @@",
  " def drinks():",
  '     """Hot drinks."""',
  "-",
  '-    return ["coffee", "tea"]',
  '+    hot = ["coffee", "tea"]',
  "+    return hot",
  " ",
  "@@ -17,2 +17,2 @@",
  " def total(items):",
  "-    return sum(PRICES[i] for i in items)",
  "+    return round(sum(PRICES[i] for i in items), 2)",
);
// A hunk whose lines are nowhere in the base file: the oracle cannot say where it goes.
const NOWHERE = menuPatch("@@ -9,2 +9,2 @@", " def snacks():", '-    return ["cake", "pie"]', '+    return ["cake"]');

let rig: EvalRig;
let run: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  // The rig's three instances, a fourth whose gold patch creates a file, a fifth whose hunks git finds off their
  // headers, and a sixth with a hunk that is nowhere in the file.
  const line = (commit: string, id: string, problem: string, patch: string) =>
    JSON.stringify({ instance_id: id, repo: "acme/greet", base_commit: commit, problem_statement: problem, patch });
  rig = await startEvalRig(
    (commit) => [
      ...instanceLines(commit),
      line(commit, "acme__greet-4", "Add bye() to greet\nWe can say hello but not bye.", CREATE),
      line(commit, "acme__greet-5", "The menu's drinks and total\ndrinks() should name the hot drinks; total() of the menu should round to cents.", OFFSET),
      line(commit, "acme__greet-6", "The menu's snacks\nsnacks() of the menu lists a pie we no longer bake.", NOWHERE),
    ],
    { "greet/menu.py": MENU },
  );
  // No scripted answer: the oracle answers every call itself.
  run = await rig.eval(["--oracle", "--prepare-from", rig.mirrors]);
});

afterAll(() => rig.close());

describe("magis eval --oracle on generated instances", () => {
  it("answers every call from the gold patches, without the configured model, and refuses, naming it, a hunk it cannot place", () => {
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "the oracle could not answer 1 call(s); the first: oracle (acme__greet-6): hunk 1 of greet/menu.py (@@ -9,2 +9,2 @@) is not in the base file",
    );
    expect(rig.model.requests).toEqual([]);
  });

  it("places offset gold hunks as git apply does, and reads Eq. 1 from what the patch leaves, not from the diff library's alignment", () => {
    const results = readLines(path.join(rig.out, "results.jsonl"));
    const five = results.find((r) => r.instance_id === "acme__greet-5")!;
    expect([five.applies, five.coverage, five.losses, five.gold_offsets]).toEqual([
      true,
      1,
      [],
      [
        { file: "greet/menu.py", hunk: 1, offset: 3 },
        { file: "greet/menu.py", hunk: 2, offset: -1 },
      ],
    ]);
    const predicted = readLines(path.join(rig.out, "predictions.jsonl")).find((p) => p.instance_id === "acme__greet-5")!.model_patch as string;
    // The pipeline's patch leaves the file exactly as git applying the gold patch does ...
    expect(predicted).toBe(makeDiff("greet/menu.py", MENU, MENU_AFTER));
    // ... but its diff library puts the removed blank line elsewhere: read by its hunks it would cover less.
    expect(lineCoverage(OFFSET.replace("@@ -3,5 +3,5 @@", "@@ -6,5 +6,5 @@").replace("@@ -17,2 +17,2 @@", "@@ -16,2 +16,2 @@"), predicted)).toBeLessThan(1);
  });

  it("makes the gold patch where the pipeline can, and names where it cannot", () => {
    const results = readLines(path.join(rig.out, "results.jsonl"));
    expect(results.map((r) => [r.instance_id, r.oracle, r.applies, r.coverage, r.losses, (r.failure as { stage: string } | null)?.stage ?? null])).toEqual([
      ["acme__greet-1", true, true, 1, [], null],
      // The Latin-1 file changes as the gold says, but its patch cannot travel as UTF-8.
      ["acme__greet-2", true, false, 1, [{ cause: "not-applied", by: "pipeline", file: "", detail: "git apply --check refused the predicted patch" }], null],
      // An added-only gold hunk at the end of the file.
      ["acme__greet-3", true, true, 1, [], null],
      [
        "acme__greet-4",
        true,
        null,
        0,
        [
          {
            cause: "new-file",
            by: "pipeline",
            file: "greet/bye.py",
            detail: "the gold patch creates this file; the pipeline only changes files the Custodian located",
          },
        ],
        "locate",
      ],
      ["acme__greet-5", true, true, 1, [], null],
      [
        "acme__greet-6",
        true,
        null,
        0,
        [
          {
            cause: "gold-not-placed",
            by: "instrument",
            file: "greet/menu.py",
            detail:
              "hunk 1 of greet/menu.py (@@ -9,2 +9,2 @@) is not in the base file: its context and removed lines are found nowhere, as git apply would find them",
          },
        ],
        "plan",
      ],
    ]);
    const predictions = readLines(path.join(rig.out, "predictions.jsonl"));
    expect(predictions.map((p) => p.model_name_or_path)).toEqual(Array(6).fill("magis-oracle"));
    expect(predictions.map((p) => p.model_patch)).toEqual([
      GOLD.hello,
      expect.stringContaining('+    return "tea"'),
      expect.stringMatching(/ Greetings for every occasion. The documentation lives in this file.\n\+\n\+## Speed\n$/),
      "",
      expect.stringContaining("+    return round("),
      "",
    ]);
  });

  it("labels the summary as an oracle run and lists the losses by cause", () => {
    const summary = fs.readFileSync(path.join(rig.out, "summary.md"), "utf8");
    expect(summary).toMatch(/^# magis eval --oracle: what the pipeline loses with a perfect model\n\n\*\*Oracle run\.\*\*/);
    expect(summary).toContain("It is not a resolve rate.");
    expect(summary).toContain("| resolved ratio | not measured (oracle) | 13.94 % |");
    const pipeline = summary.slice(summary.indexOf("### Losses of the pipeline"), summary.indexOf("### Losses of the instrument"));
    expect(pipeline).toMatch(/^### Losses of the pipeline: 2 of 6 instances\n/);
    expect(pipeline).toContain("| new-file | 1 | acme__greet-4 |");
    expect(pipeline).toContain("| not-applied | 1 | acme__greet-2 |");
    const instrument = summary.slice(summary.indexOf("### Losses of the instrument"));
    expect(instrument).toMatch(/^### Losses of the instrument \(the oracle, the metric\): 1 of 6 instances\n/);
    expect(instrument).toContain("| gold-not-placed | 1 | acme__greet-6 |");
    expect(summary).toContain(
      "Gold patches whose hunks `git apply` finds off their headers' lines (the oracle placed them there): 1 of 6 (acme__greet-5 greet/menu.py hunk 1 +3, greet/menu.py hunk 2 -1).",
    );
  });

  it("with candidates, records whether a gold-equivalent candidate was among them and shows it in the summary", async () => {
    const out = path.join(path.dirname(rig.out), "out-candidates");
    const sampled = await rig.eval([
      "--oracle",
      "--prepare-from",
      rig.mirrors,
      "--candidates",
      "2",
      "--instances",
      "acme__greet-1,acme__greet-4,acme__greet-5",
      "--out",
      out,
    ]);
    expect(sampled.code, sampled.stderr).toBe(0);
    const results = readLines(path.join(out, "results.jsonl"));
    // The oracle answers each candidate alike: one group of two votes per task, the gold's change. The fourth creates
    // a file the pipeline never located: no task, no candidates.
    expect(results.map((r) => [r.instance_id, r.candidates ?? null])).toEqual([
      ["acme__greet-1", { sampled: 2, groups: 1, chosen_ranks: [1], gold_equivalent: true }],
      ["acme__greet-4", null],
      ["acme__greet-5", { sampled: 2, groups: 1, chosen_ranks: [1], gold_equivalent: true }],
    ]);
    const summary = fs.readFileSync(path.join(out, "summary.md"), "utf8");
    expect(summary).toContain("| candidates sampled, distinct groups | 4, 2 (2 instances) |");
    expect(summary).toContain("| a gold-equivalent candidate among them | 2 of 2 (100.0 %) |");
  });

  it("gives no harness command to score its predictions, which are the gold patches, and says why", () => {
    const summary = fs.readFileSync(path.join(rig.out, "summary.md"), "utf8");
    expect(summary).not.toContain("swebench.harness");
    expect(summary).not.toContain("--predictions_path");
    expect(summary).toContain("## Not for the SWE-bench harness\n\nThis run's `predictions.jsonl` holds the gold patches as the pipeline carried them through");
  });
});
