import { describe, expect, it } from "vitest";
import { lookUnrelated } from "../../../../src/github/read/read-ci-failures.js";

const failure = (logTail: string, title = "", summary = "") => ({ title, summary, logTail, annotations: [] });

describe("lookUnrelated: failures that are the CI's own trouble, not the change's", () => {
  it.each([
    ["The runner has received a shutdown signal. This can happen when the runner service is stopped", "the runner was lost"],
    ["System.IO.IOException: No space left on device", "the runner ran out of disk"],
    ["npm ERR! code ECONNRESET\nnpm ERR! network aborted", "a download failed while installing"],
    ["fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com", "a network error"],
    ["pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='pypi.org')", "a download failed while installing"],
    ["Error: 502 Bad Gateway", "a service the CI needs did not answer"],
  ])("%s", (log, why) => {
    expect(lookUnrelated(failure(log))).toBe(why);
  });

  it("a job stopped at its time limit is not excused: the change may be what hangs", () => {
    expect(
      lookUnrelated(
        failure(
          "##[error]The job running on runner GitHub Actions 2 has exceeded the maximum execution time of 10 minutes.\n##[error]The operation was canceled.",
        ),
      ),
    ).toBeUndefined();
  });

  it("a failure that points at the code is the change's, whatever network words its log holds", () => {
    expect(
      lookUnrelated({
        ...failure("Error: socket hang up\nCould not resolve host: api.example.com"),
        annotations: [{ path: "src/a.js", line: 3, level: "failure", message: "boom" }],
      }),
    ).toBeUndefined();
    expect(
      lookUnrelated(failure("Could not resolve host: mock.example\nFAILED tests/test_client.py::test_retry - ConnectionError\n1 failed, 4 passed in 0.3s")),
    ).toBeUndefined();
    expect(lookUnrelated(failure("Error: socket hang up\n    at Test.run (client.test.js:12)"))).toBeUndefined();
  });

  it("a failing test or a lint error is the change's", () => {
    expect(lookUnrelated(failure("FAILED tests/test_cart.py::test_total - assert 7.5 == 750\n1 failed, 12 passed in 0.4s", "pytest"))).toBeUndefined();
    expect(lookUnrelated(failure("src/cart.js\n  4:5  error  'total' is never reassigned  prefer-const"))).toBeUndefined();
  });
});
