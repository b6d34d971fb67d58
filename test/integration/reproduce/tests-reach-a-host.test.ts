import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startResolveRig, type ResolveRig } from "../resolve/run-resolve.js";
import { asked, FIX, MEAN_FILES, MEAN_ISSUE, scriptMean } from "./script-mean.js";

let rig: ResolveRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The mean repository with a test suite that fetches its expected value from a host: in the sandbox no name resolves. */
const FILES = {
  ...MEAN_FILES,
  "test.mjs": [
    'import { mean } from "./src/stats.js";',
    'const expected = await (await fetch("http://stats.example.invalid/expected-mean")).json();',
    "if (mean([]) !== expected) process.exit(1);",
    "",
  ].join("\n"),
  ".github/magis.yml": "test_command: node test.mjs\nreproduce_attempts: 3\n",
};

describe("the dynamic way when the repository's tests could not reach a host", () => {
  it("goes the static way before any script is written, naming the host and that the sandbox gives none", async () => {
    rig = await startResolveRig({ issue: MEAN_ISSUE, files: FILES });
    scriptMean(rig.model);
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    // The Manager chose the dynamic way, but no script is written, run or judged: it would meet the same sandbox.
    // The Manager chose the way with the first file's task, not in a call of its own.
    expect(asked(rig.model, "manager-define-task-and-way")).toHaveLength(1);
    expect(asked(rig.model, "manager-choose-way")).toEqual([]);
    expect(asked(rig.model, "developer-write-reproduction")).toEqual([]);
    expect(asked(rig.model, "developer-check-reproduction")).toEqual([]);
    expect(run.stderr).toContain(
      "Way: static after all: the issue was not reproduced: the repository's tests (`node test.mjs`) could not reach a host on the untouched checkout, and the scripts run in the same sandbox: the sandbox has no network for the tests and the reproductions, by design, so `stats.example.invalid` could not be reached (`",
    );
    expect(run.stderr).toContain("a reproduction must not need one");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("The issue was not reproduced, so the run went the static way: the repository's tests (`node test.mjs`) could not reach a host");
    // The static way still makes the change.
    expect(fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8")).toContain(`+${FIX}`);
    // The tests fail for want of a network with the change as before it, so QA reads that they could not judge it, not
    // their output; the report still says how they ran.
    const [review] = asked(rig.model, "qa-review");
    expect(review).toContain(
      "The repository's tests (`node test.mjs`) could not judge this change here: they fail for want of network access (to `stats.example.invalid`) before the change and with it alike, and none newly fails or passes. Judge the change by reading.",
    );
    expect(review).not.toContain("The end of the test output");
    expect(review).not.toContain("getaddrinfo");
  });

  it("still asks the Reproducer when the issue itself reports such a failure", async () => {
    const issue = `${MEAN_ISSUE}\nFetching the expected value first fails with:\n\n    Error: getaddrinfo EAI_AGAIN stats.example.invalid\n`;
    rig = await startResolveRig({ issue, files: FILES });
    scriptMean(rig.model);
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(asked(rig.model, "developer-write-reproduction")).toHaveLength(1);
    expect(run.stderr).toContain("Way: dynamic: reproduced by `node reproduce-mean.mjs`, which failed (exit 1) on the untouched code");
  });
});
