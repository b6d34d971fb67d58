import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processesWith } from "../../../src/sandbox/escape-probes.js";
import { startResolveRig, type ResolveRig } from "../resolve/run-resolve.js";
import { asked, FIX, MEAN_FILES, MEAN_ISSUE, NOT_A_FIX, REPRODUCTION, scriptMean } from "./script-mean.js";

let rig: ResolveRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A rig on the mean repository, with this `.github/magis.yml`. */
async function meanRig(config = ""): Promise<ResolveRig> {
  rig = await startResolveRig({ issue: MEAN_ISSUE, files: { ...MEAN_FILES, ...(config ? { ".github/magis.yml": config } : {}) } });
  return rig;
}

const report = (r: ResolveRig) => fs.readFileSync(path.join(r.out, "report.md"), "utf8");

describe("the dynamic way: reproduce the issue in the sandbox, fix it against the reproduction, verify", () => {
  it("reproduces the issue in bubblewrap, the Developer works against it, and the report shows it failing before and passing after", async () => {
    const r = await meanRig();
    scriptMean(r.model);
    const run = await r.resolve();
    expect(r.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    // The CLI says the way and each verdict.
    expect(run.stderr).toContain("Way: dynamic (The issue shows a wrong value that a three-line script prints.); reproducing the issue");
    expect(run.stderr).toContain("Way: dynamic: reproduced by `node reproduce-mean.mjs`, which failed (exit 1) on the untouched code");
    expect(run.stderr).toContain("src/stats.js: attempt 1 (reproduction: passed (exit 0)) approved by QA");
    expect(run.stderr).toContain("with the change it passed (exit 0): the issue is gone");
    // The Reproducer read the real output of its script, run in the sandbox on the untouched code.
    expect(asked(r.model, "developer-check-reproduction")[0]).toContain("mean([]) gave NaN, expected 0");
    // The Developer and QA read the reproduction and its output; QA also its run with the change.
    expect(asked(r.model, "developer-locate-lines")[0]).toContain("The Reproducer's script `reproduce-mean.mjs`, run with `node reproduce-mean.mjs`");
    expect(asked(r.model, "developer-write-code")[0]).toContain("mean([]) gave NaN, expected 0");
    expect(asked(r.model, "qa-review")[0]).toContain("With this change (and the kept changes of earlier plan steps) it passed (exit 0)");
    // The PR's Reproduction section: the way and why, the script, its output before and after, the verdict.
    const text = report(r);
    expect(text).toContain("### Reproduction");
    expect(text).toContain("The Manager chose the dynamic way: The issue shows a wrong value that a three-line script prints.");
    expect(text).toContain(
      "**Rae**, the Reproducer, wrote `reproduce-mean.mjs` (run with `node reproduce-mean.mjs`), which failed (exit 1) on the untouched code",
    );
    expect(text).toContain("With the change it passed (exit 0): **the issue is gone**.");
    expect(text).toContain("mean([]) is 0");
    expect(text).toContain("The scripts ran in a bubblewrap sandbox (no network;");
    // The reproduction is shown, not committed (keep_reproduction: off), and the patch fixes the issue.
    const patch = fs.readFileSync(path.join(r.out, "patch.diff"), "utf8");
    expect(patch).not.toContain("reproduce-mean.mjs");
    expect(patch).toContain(`+${FIX}`);
    expect(fs.existsSync(path.join(r.checkout, REPRODUCTION.path))).toBe(false);
  });

  it("refuses an attempt after which the reproduction still fails, tells the next attempt what it printed, and keeps the one that fixes it", async () => {
    const r = await meanRig();
    scriptMean(r.model, { fixes: [NOT_A_FIX, FIX] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "src/stats.js: attempt 1 (reproduction: failed (exit 1)) QA asked for changes: Not approved because the reproduction still fails with this change: it failed (exit 1).",
    );
    expect(run.stderr).toContain("src/stats.js: attempt 2 (reproduction: passed (exit 0)) approved by QA");
    const second = asked(r.model, "developer-locate-lines")[1]!;
    expect(second).toContain("With that change, the reproduction failed (exit 1)");
    expect(second).toContain("mean([]) gave NaN, expected 0");
    expect(fs.readFileSync(path.join(r.out, "patch.diff"), "utf8")).toContain(`+${FIX}`);
  });

  it("goes the static way, and says why, when no script shows the issue (the script fails on its own import)", async () => {
    const r = await meanRig("reproduce_attempts: 2\n");
    const broken = { ...REPRODUCTION, content: 'import { mean } from "./src/statistics.js";\nconsole.log(mean([]));\nprocess.exit(1);\n' };
    scriptMean(r.model, { scripts: [broken] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    // Judged by how it ended, before any model reads it: the Reproducer is never asked to check it.
    expect(asked(r.model, "developer-check-reproduction")).toEqual([]);
    expect(asked(r.model, "developer-write-reproduction")).toHaveLength(2);
    expect(asked(r.model, "developer-write-reproduction")[1]).toContain(
      "It does not show the issue: the script failed to import what it needs (ERR_MODULE_NOT_FOUND)",
    );
    expect(run.stderr).toContain(
      "Way: static after all: the issue was not reproduced: none of the Reproducer's 2 scripts showed the issue (the last: the script failed to import what it needs (ERR_MODULE_NOT_FOUND), which is not the failure the issue reports)",
    );
    expect(asked(r.model, "qa-review")[0]).toContain("The issue was not reproduced (the static way)");
    const text = report(r);
    expect(text).toContain("The issue was not reproduced, so the run went the static way: none of the Reproducer's 2 scripts showed the issue");
    expect(text).toContain("<summary>Scripts tried</summary>");
  });

  it("goes the static way after the first script that cannot start for want of a package, saying what is missing and where to declare it", async () => {
    const r = await meanRig("reproduce_attempts: 3\n");
    const needsPackage = { ...REPRODUCTION, content: 'import { mean } from "magis-absent-stats";\nconsole.log(mean([]));\nprocess.exit(1);\n' };
    scriptMean(r.model, { scripts: [needsPackage] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    // One script, not three: another would meet the same environment. None is judged by a model.
    expect(asked(r.model, "developer-write-reproduction")).toHaveLength(1);
    expect(asked(r.model, "developer-check-reproduction")).toEqual([]);
    expect(run.stderr).toContain(
      "Way: static after all: the issue was not reproduced: the scripts cannot run where they run: the environment lacks the Node package `magis-absent-stats`",
    );
    expect(run.stderr).toContain("declare it with a setup step that installs it: `environment: setup:` in `.github/magis.yml`");
  });

  it("goes the static way after the first script that needs the network, saying the sandbox has none by design", async () => {
    const r = await meanRig("reproduce_attempts: 3\n");
    // A name that resolves nowhere: in the sandbox's empty network no lookup leaves the machine anyway.
    const needsNetwork = {
      ...REPRODUCTION,
      content: [
        'import { mean } from "./src/stats.js";',
        'const expected = await (await fetch("http://stats.example.invalid/expected-mean")).json();',
        "if (mean([]) !== expected) process.exit(1);",
        "",
      ].join("\n"),
    };
    scriptMean(r.model, { scripts: [needsNetwork] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    // One script, not three, and none judged by a model: every script meets the same sandbox.
    expect(asked(r.model, "developer-write-reproduction")).toHaveLength(1);
    expect(asked(r.model, "developer-check-reproduction")).toEqual([]);
    expect(run.stderr).toContain(
      "Way: static after all: the issue was not reproduced: the scripts cannot run where they run: the sandbox has no network for the tests and the reproductions, by design, so `stats.example.invalid` could not be reached (`",
    );
    expect(run.stderr).toContain("getaddrinfo");
    expect(run.stderr).toContain("a reproduction must not need one");
    expect(report(r)).toContain("The issue was not reproduced, so the run went the static way");
  });

  it("judges a script that meets no network when the issue itself reports such a failure", async () => {
    const issue = `${MEAN_ISSUE}\nFetching the expected value first fails with:\n\n    Error: getaddrinfo EAI_AGAIN stats.example.invalid\n`;
    rig = await startResolveRig({ issue, files: { ...MEAN_FILES, ".github/magis.yml": "reproduce_attempts: 1\n" } });
    const needsNetwork = { ...REPRODUCTION, content: 'await fetch("http://stats.example.invalid/expected-mean");\n' };
    scriptMean(rig.model, { scripts: [needsNetwork], checks: [{ reproduced: false, reason: "It fails on the fetch, not on mean." }] });
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(asked(rig.model, "developer-check-reproduction")).toHaveLength(1);
    expect(run.stderr).toContain("none of the Reproducer's 1 script showed the issue (the last: It fails on the fetch, not on mean.)");
  });

  it("hands the Reproducer's check a bounded script and expectation, however long it wrote them", async () => {
    const r = await meanRig();
    const long = { ...REPRODUCTION, content: `${REPRODUCTION.content}// ${"a".repeat(225_000)}\n`, expected: "NaN ".repeat(10_000) };
    scriptMean(r.model, { scripts: [long] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    const check = asked(r.model, "developer-check-reproduction")[0]!;
    expect(check.length).toBeLessThan(20_000);
    expect(check).toContain("… (219");
  });

  it("is not a reproduction when the script passes on the untouched code, nor when its own syntax is broken", async () => {
    const r = await meanRig("reproduce_attempts: 2\n");
    const passes = { ...REPRODUCTION, content: 'import { mean } from "./src/stats.js";\nconsole.log(mean([1, 2]));\n' };
    const syntax = { ...REPRODUCTION, content: 'import { mean } from "./src/stats.js";\nif (mean([]) !== 0 {\n  process.exit(1);\n}\n' };
    scriptMean(r.model, { scripts: [passes, syntax] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    const second = asked(r.model, "developer-write-reproduction")[1]!;
    expect(second).toContain("It does not show the issue: the script passed (exit 0) on the untouched code, so it does not show the issue");
    expect(run.stderr).toContain("(the last: the script has a SyntaxError of its own, so its run says nothing of the issue)");
    expect(asked(r.model, "developer-check-reproduction")).toEqual([]);
  });

  it("stops a reproduction that hangs, with everything it started, and bounds one that floods its output", async () => {
    const r = await meanRig("reproduce_attempts: 2\ntest_timeout_seconds: 2\n");
    const hangs = {
      ...REPRODUCTION,
      content: 'import { spawn } from "node:child_process";\nspawn("sleep", ["4567.25"], { detached: true });\nsetInterval(() => {}, 1000);\n',
    };
    const floods = {
      ...REPRODUCTION,
      content: 'const line = "x".repeat(999) + "\\n";\nfor (let i = 0; i < 50000; i++) process.stdout.write(line);\nprocess.exit(1);\n',
    };
    scriptMean(r.model, { scripts: [hangs, floods], checks: [{ reproduced: false, reason: "It prints x, not NaN." }] });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(asked(r.model, "developer-write-reproduction")[1]).toContain(
      "the script did not finish within 2 s and was stopped; a reproduction must end quickly",
    );
    await expect.poll(() => processesWith("4567.25"), { timeout: 10_000 }).toEqual([]);
    // 50 MB of output: the Reproducer reads a bounded end of it.
    const check = asked(r.model, "developer-check-reproduction")[0]!;
    expect(check.length).toBeLessThan(12_000);
    expect(check).toContain("x".repeat(200));
    expect(run.stderr).toContain("(the last: It prints x, not NaN.)");
  });

  it("with keep_reproduction: test, adds the reproduction to the change, and the patch applies", async () => {
    const r = await meanRig("keep_reproduction: test\n");
    scriptMean(r.model);
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    const patch = path.join(r.out, "patch.diff");
    expect(fs.readFileSync(patch, "utf8")).toContain("+++ b/reproduce-mean.mjs");
    expect(spawnSync("git", ["apply", "--check", patch], { cwd: r.checkout }).status).toBe(0);
    expect(report(r)).toContain("It is part of this change as a regression test (`keep_reproduction: test`).");
  });

  it("takes the static way when the Manager chooses it: no script is written, and the report says why", async () => {
    const r = await meanRig();
    scriptMean(r.model, { way: "static" });
    const run = await r.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Way: static (The issue shows a wrong value that a three-line script prints.)");
    expect(asked(r.model, "developer-write-reproduction")).toEqual([]);
    expect(report(r)).toContain("The static way: the change was made by reading the code, with no reproduction");
  });
});
