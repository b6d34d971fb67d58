import { describe, expect, it } from "vitest";
import { describeTestsForReview } from "../../../src/pipeline/code/describe-tests-for-review.js";
import type { TestRun } from "../../../src/pipeline/types.js";

const OFFLINE =
  "FAILED test_requests.py::test_get - requests.exceptions.ConnectionError: HTTPConnectionPool(host='httpbin.org', port=80): Max retries exceeded (Caused by <class 'socket.gaierror'>: [Errno -3] Temporary failure in name resolution)\n50 failed, 70 passed in 43.50s";

function run(outcome: TestRun["outcome"], tail: string, failed: number, passed: number, failures: string[]): TestRun {
  return { outcome, exitCode: outcome === "passed" ? 0 : 1, counts: { failed, passed, skipped: 0 }, failures, tail, durationMs: 1000 };
}

const offline = run("failed", OFFLINE, 50, 70, ["test_requests.py::test_get"]);

describe("the tests' verdict as the QA Engineer reads it", () => {
  it("is one sentence, without the failing tests or the output, when the tests only fail for want of a network before and with the change", () => {
    const text = describeTestsForReview({ command: "python3 -m pytest", before: offline, verdict: { run: offline, newFailures: [], fixed: [] } });
    expect(text).toBe(
      "The repository's tests (`python3 -m pytest`) could not judge this change here: they fail for want of network access (to `httpbin.org`) before the change and with it alike, and none newly fails or passes; the 70 that passed before still pass. Judge the change by reading.",
    );
  });

  it("says the same of tests that cannot start for want of their framework", () => {
    const missing = { ...run("failed", "/usr/bin/python3: No module named pytest", 0, 0, []), counts: null };
    const text = describeTestsForReview({ command: "python3 -m pytest", before: missing, verdict: { run: missing, newFailures: [], fixed: [] } });
    expect(text).toContain("could not judge this change here: they fail for want of the Python module `pytest`");
    expect(text).not.toContain("No module named");
  });

  it("stays whole when the change makes a test newly fail or pass, even where others fail for want of a network", () => {
    const worse = run("failed", OFFLINE, 51, 69, ["test_requests.py::test_get", "test_requests.py::test_local"]);
    const broke = describeTestsForReview({
      command: "python3 -m pytest",
      before: offline,
      verdict: { run: worse, newFailures: ["test_requests.py::test_local"], fixed: [], breaks: "`test_requests.py::test_local` passed before" },
    });
    expect(broke).toContain("- Newly failing: `test_requests.py::test_local`.");
    expect(broke).toContain("The end of the test output with the change:");
    const better = run("failed", OFFLINE, 49, 71, ["test_requests.py::test_get"]);
    const fixed = describeTestsForReview({
      command: "python3 -m pytest",
      before: offline,
      verdict: { run: better, newFailures: [], fixed: ["test_requests.py::test_x"] },
    });
    expect(fixed).toContain("- Now passing: `test_requests.py::test_x`.");
  });

  it("stays whole when the change makes the tests fail for want of another module, which the change imports", () => {
    const conftest = "ImportError while loading conftest '/workspace/tests/conftest.py'.";
    const before = { ...run("failed", `${conftest}\nE   ModuleNotFoundError: No module named 'hypothesis'`, 0, 0, []), counts: null };
    const after = { ...run("failed", `${conftest}\nE   ModuleNotFoundError: No module named 'reqests'`, 0, 0, []), counts: null };
    const text = describeTestsForReview({ command: "python3 -m pytest", before, verdict: { run: after, newFailures: [], fixed: [] } });
    expect(text).not.toContain("could not judge this change");
    expect(text).toContain("The end of the test output with the change:");
    expect(text).toContain("No module named 'reqests'");
  });

  it("stays whole when the tests fail on their assertions, not on the environment", () => {
    const assertion = run("failed", "FAILED test_m.py::test_x - AssertionError: assert 12 == 3\n1 failed, 4 passed", 1, 4, ["test_m.py::test_x"]);
    const text = describeTestsForReview({ command: "python3 -m pytest", before: assertion, verdict: { run: assertion, newFailures: [], fixed: [] } });
    expect(text).toContain("The end of the test output with the change:");
    expect(text).toContain("AssertionError: assert 12 == 3");
  });
});
