import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeProgress } from "../../../src/cli/resolve.js";
import { parseConfig } from "../../../src/config.js";
import { testsLine } from "../../../src/jobs/render-step-list.js";
import { renderTests } from "../../../src/pipeline/report/render-tests.js";
import { openTestBench } from "../../../src/pipeline/tests/open-test-bench.js";
import { openWorkbench, type Workbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// A test command that cannot start in the sandbox for want of its tools, through the real bubblewrap: the report says
// what is missing and where to declare it, and the CLI, the status comment and the pull request show the output's end.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});
let work: string;
let root: string;
const workbenches: Workbench[] = [];
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-environment-"));
  root = path.join(work, "checkout");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "test_a.py"), "def test_a():\n    assert True\n");
});
afterEach(() => {
  for (const workbench of workbenches.splice(0)) workbench.dispose();
  fs.rmSync(work, { recursive: true, force: true });
});
const context = (config: Record<string, unknown>): StageContext =>
  ({
    root,
    repoId: root,
    config: parseConfig(config),
    llm: null as never,
    now: Date.now,
    onProgress: () => {},
    commands: { allowed: true, sandbox, scratchDir: path.join(work, "copy") },
  }) as StageContext;
const open = async (config: Record<string, unknown>) => {
  const ctx = context(config);
  const opened = await openWorkbench(ctx);
  if (opened.ok) workbenches.push(opened.workbench);
  return (await openTestBench(ctx, opened))!;
};

describe("a test run that cannot start for the environment's reasons", () => {
  it("sets the tests aside saying which module is missing and where to declare it, with the output's end everywhere", async () => {
    const { report, bench } = await open({ test_command: "python3 -m magis_absent_runner -q" });
    expect(bench).toBeNull();
    expect(report.skipped).toBe(
      "the tests could not start: the environment lacks the Python module `magis_absent_runner` (`/usr/bin/python3: No module named magis_absent_runner`); declare it with a setup step that installs it: `environment: setup:` in `.github/magis.yml` (or `setup_command`, `.devcontainer/devcontainer.json`, `copilot-setup-steps.yml`), run in the sandbox before the tests and the reproductions",
    );
    const status = testsLine(report);
    expect(status).toMatch(/^- \[x\] Tests \(`python3 -m magis_absent_runner -q`, in bubblewrap\) not used: the tests could not start/);
    expect(status).toContain("  <summary>The end of the output of the tests before the change</summary>\n");
    expect(status).toContain("  /usr/bin/python3: No module named magis_absent_runner\n");
    expect(renderTests(report)).toContain("```text\n/usr/bin/python3: No module named magis_absent_runner\n```");
    expect(describeProgress({ stage: "tests", tests: report })).toContain(
      "  The end of the output of the tests before the change:\n    /usr/bin/python3: No module named magis_absent_runner\n",
    );
  });

  it("a setup command not found says which, and shows the setup's output", async () => {
    const { report } = await open({ test_command: "true", setup_command: "magis-absent-installer --all" });
    expect(report.skipped).toBe(
      "the setup command failed (exit 127); the sandbox lacks the command `magis-absent-installer` (`/bin/sh: 1: magis-absent-installer: not found`)",
    );
    expect(testsLine(report)).toContain("<summary>The end of the output of `magis-absent-installer --all`</summary>");
  });

  it("a suite that fails on its own tests is still used: its failures are the code's, not the environment's", async () => {
    fs.writeFileSync(path.join(root, "run.sh"), "echo 'not ok 1 - broken'; echo '# pass 0'; echo '# fail 1'; exit 1\n");
    const { report, bench } = await open({ test_command: "sh run.sh" });
    expect(report.skipped).toBeUndefined();
    expect(bench).not.toBeNull();
    expect(testsLine(report)).not.toContain("<details>");
  });
});
