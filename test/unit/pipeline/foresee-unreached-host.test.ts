import { describe, expect, it } from "vitest";
import { foreseeUnreachedHost } from "../../../src/pipeline/reproduce/foresee-unreached-host.js";
import type { IssueText, TestRun, TestsReport } from "../../../src/pipeline/types.js";

const ISSUE: IssueText = { title: "Session.resolve_redirects copies the original method", body: "A 303 after a POST is followed with a POST.", hints: [] };

// The end of pytest's summary on requests 2.3 in a sandbox without a network (a wide terminal keeps the reason whole).
const UNREACHED = [
  "FAILED test_requests.py::RequestsTestCase::test_HTTP_200_OK_GET - requests.exceptions.ConnectionError: HTTPConnectionPool(host='httpbin.org', port=80): Max retries exceeded with url: /get (Caused by <class 'socket.gaierror'>: [Errno -3] Temporary failure in name resolution)",
  "===== 97 failed, 60 passed in 4.51s =====",
].join("\n");

function tests(outcome: TestRun["outcome"], tail: string): TestsReport {
  const before: TestRun = { outcome, exitCode: outcome === "passed" ? 0 : 1, tail, failures: [], counts: null, durationMs: 4_000 };
  return { command: "python3 -m pytest -q", before };
}

describe("foreseeUnreachedHost", () => {
  it("names the host the tests could not reach, and that the sandbox gives none by design", () => {
    const why = foreseeUnreachedHost(ISSUE, tests("failed", UNREACHED));
    expect(why).toContain("the repository's tests (`python3 -m pytest -q`) could not reach a host on the untouched checkout");
    expect(why).toContain("so `httpbin.org` could not be reached");
    expect(why).toContain("by design");
  });

  it("names the host from a later line when the first that fails on a name does not give it", () => {
    const unnamed =
      "FAILED test_requests.py::RequestsTestCase::test_iter_lines - requests.exceptions.ConnectionError: ('Connection aborted.', gaierror(-3, 'Temporary failure in name resolution'))";
    expect(foreseeUnreachedHost(ISSUE, tests("failed", `${unnamed}\n${UNREACHED}`))).toContain("so `httpbin.org` could not be reached");
  });

  it.each([
    ["no test_command", null],
    ["tests that passed", tests("passed", "===== 3 passed in 0.1s =====")],
    ["tests that failed on an assertion", tests("failed", "FAILED test_x.py::test_y - AssertionError: 1 != 2\n===== 1 failed in 0.1s =====")],
    ["tests that could not start (a missing module comes first)", tests("failed", `E   ModuleNotFoundError: No module named 'pytest_httpbin'\n${UNREACHED}`)],
  ])("is null for %s", (_, report) => {
    expect(foreseeUnreachedHost(ISSUE, report)).toBeNull();
  });

  it("is null when the issue itself reports a host not reached", () => {
    const issue = { ...ISSUE, hints: ["With no network I get: socket.gaierror: [Errno -3] Temporary failure in name resolution"] };
    expect(foreseeUnreachedHost(issue, tests("failed", UNREACHED))).toBeNull();
  });
});
