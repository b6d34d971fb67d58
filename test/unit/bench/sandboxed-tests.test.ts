import { describe, expect, it } from "vitest";
import { assertSandboxedTests, tallyTests, testsModeFrom, workerEnvironments } from "../../../bench/lib/sandboxed-tests.js";
import { describeEnvironment } from "../../../src/pipeline/report/render-environment.js";
import { renderTests } from "../../../src/pipeline/report/render-tests.js";
import type { EnvironmentReport, TestRun } from "../../../src/pipeline/types.js";

const run = (outcome: TestRun["outcome"], exitCode: number): TestRun => ({ outcome, exitCode, counts: null, failures: [], tail: "", durationMs: 40 });

/** A pull request's body as the pipeline renders it: the environment's sentence and the tests' section. */
function body(how: EnvironmentReport["how"] | "none", after: TestRun): string {
  const environment: EnvironmentReport = {
    source: ".github/magis.yml environment",
    how: how === "none" ? "built" : how,
    steps: ["python3 -m venv --system-site-packages .venv"],
    stepSeconds: 2.1,
    readySeconds: 2.4,
    key: "0123456789ab",
    unsupported: [],
    shadowed: [],
    ...(how === "built" && { kept: { kept: true as const } }),
  };
  const tests = renderTests({ command: ".venv/bin/python -c ...", before: run("failed", 1), after: { run: after, newFailures: [], fixed: [] } });
  return ["Fixes the typo.", ...(how === "none" ? [] : [`- ${describeEnvironment(environment)}`]), "", tests].join("\n");
}

describe("the sandbox mode's tally of environments and tests", () => {
  it("counts environments built and reused and tests passed with the change, from the bodies the pipeline renders", () => {
    const bodies = [body("built", run("passed", 0)), body("reused", run("passed", 0)), body("reused", run("failed", 1)), body("none", run("passed", 0))];
    expect(tallyTests(bodies)).toEqual({ built: 1, reused: 2, unsaid: 1, passed: 3 });
  });

  it("accepts a run where each worker built once and every job passed", () => {
    const bodies = [body("built", run("passed", 0)), body("built", run("passed", 0)), body("reused", run("passed", 0))];
    expect(() => assertSandboxedTests(tallyTests(bodies), 3, 2)).not.toThrow();
  });

  it("refuses a run where a job's tests failed, a body names no environment, or a worker built twice", () => {
    const failing = [body("built", run("passed", 0)), body("reused", run("failed", 1))];
    expect(() => assertSandboxedTests(tallyTests(failing), 2, 1)).toThrow("the tests passed with the change in 1 of 2 pull requests");
    const unsaid = [body("built", run("passed", 0)), body("none", run("passed", 0))];
    expect(() => assertSandboxedTests(tallyTests(unsaid), 2, 1)).toThrow("1 pull request(s) name no environment built or reused");
    const twice = [body("built", run("passed", 0)), body("built", run("passed", 0))];
    expect(() => assertSandboxedTests(tallyTests(twice), 2, 1)).toThrow("2 environments built by 1 worker(s)");
    expect(() => assertSandboxedTests(tallyTests(twice), 3, 2)).toThrow("2 pull requests for 3 jobs");
  });
});

describe("the sandbox mode's settings", () => {
  it("reads --tests, and says what it takes otherwise", () => {
    expect(testsModeFrom("sandbox")).toBe("sandbox");
    expect(testsModeFrom("none")).toBe("none");
    expect(() => testsModeFrom("bwrap")).toThrow('--tests: expected none or sandbox, got "bwrap"');
  });

  it("gives each worker a bubblewrap sandbox and an environment folder of its own, and none without tests", () => {
    const environments = workerEnvironments("sandbox");
    try {
      const [first, second] = [environments.envOf(0), environments.envOf(1)];
      expect(first.MAGIS_SANDBOX).toBe("bwrap");
      expect(first.MAGIS_ENV_DIR).not.toBe(second.MAGIS_ENV_DIR);
    } finally {
      environments.remove();
    }
    expect(workerEnvironments("none").envOf(0)).toEqual({});
  });
});
