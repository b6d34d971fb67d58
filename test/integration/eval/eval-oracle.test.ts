import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

let rig: EvalRig;
let run: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  // The rig's three instances and a fourth whose gold patch creates a file.
  rig = await startEvalRig((commit) => [
    ...instanceLines(commit),
    JSON.stringify({
      instance_id: "acme__greet-4",
      repo: "acme/greet",
      base_commit: commit,
      problem_statement: "Add bye() to greet\nWe can say hello but not bye.",
      patch: CREATE,
    }),
  ]);
  // No scripted answer: the oracle answers every call itself.
  run = await rig.eval(["--oracle", "--prepare-from", rig.mirrors]);
});

afterAll(() => rig.close());

describe("magis eval --oracle on generated instances", () => {
  it("answers every call from the gold patches, without the configured model", () => {
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("the oracle could not answer");
    expect(rig.model.requests).toEqual([]);
  });

  it("makes the gold patch where the pipeline can, and names where it cannot", () => {
    const results = readLines(path.join(rig.out, "results.jsonl"));
    expect(results.map((r) => [r.instance_id, r.oracle, r.applies, r.coverage, r.losses, (r.failure as { stage: string } | null)?.stage ?? null])).toEqual([
      ["acme__greet-1", true, true, 1, [], null],
      // The Latin-1 file changes as the gold says, but its patch cannot travel as UTF-8.
      ["acme__greet-2", true, false, 1, [{ cause: "not-applied", file: "", detail: "git apply --check refused the predicted patch" }], null],
      // An added-only gold hunk at the end of the file.
      ["acme__greet-3", true, true, 1, [], null],
      [
        "acme__greet-4",
        true,
        null,
        0,
        [{ cause: "new-file", file: "greet/bye.py", detail: "the gold patch creates this file; the pipeline only changes files the Custodian located" }],
        "locate",
      ],
    ]);
    const predictions = readLines(path.join(rig.out, "predictions.jsonl"));
    expect(predictions.map((p) => p.model_name_or_path)).toEqual(["magis-oracle", "magis-oracle", "magis-oracle", "magis-oracle"]);
    expect(predictions.map((p) => p.model_patch)).toEqual([
      GOLD.hello,
      expect.stringContaining('+    return "tea"'),
      expect.stringMatching(/ Greetings for every occasion. The documentation lives in this file.\n\+\n\+## Speed\n$/),
      "",
    ]);
  });

  it("labels the summary as an oracle run and lists the losses by cause", () => {
    const summary = fs.readFileSync(path.join(rig.out, "summary.md"), "utf8");
    expect(summary).toMatch(/^# magis eval --oracle: what the pipeline loses with a perfect model\n\n\*\*Oracle run\.\*\*/);
    expect(summary).toContain("It is not a resolve rate.");
    expect(summary).toContain("| resolved ratio | not measured (oracle) | 13.94 % |");
    expect(summary).toContain("| new-file | 1 | acme__greet-4 |");
    expect(summary).toContain("| not-applied | 1 | acme__greet-2 |");
  });

  it("gives no harness command to score its predictions, which are the gold patches, and says why", () => {
    const summary = fs.readFileSync(path.join(rig.out, "summary.md"), "utf8");
    expect(summary).not.toContain("swebench.harness");
    expect(summary).not.toContain("--predictions_path");
    expect(summary).toContain("## Not for the SWE-bench harness\n\nThis run's `predictions.jsonl` holds the gold patches as the pipeline carried them through");
  });
});
