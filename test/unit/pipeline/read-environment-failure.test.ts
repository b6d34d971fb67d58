import { describe, expect, it } from "vitest";
import { describeEnvironmentGap, readEnvironmentFailure } from "../../../src/pipeline/tests/read-environment-failure.js";

// Lines as the shells, Python and Node print them here (dash 0.5, bash 5.2, coreutils env, Python 3.11, Node 20).
const cases: [string, string | null][] = [
  ["/usr/bin/python3: No module named pytest", "the Python module `pytest`"],
  ["E   ModuleNotFoundError: No module named 'numpy'", "the Python module `numpy`"],
  ["ImportError while loading conftest: No module named 'hypothesis.strategies'", "the Python module `hypothesis.strategies`"],
  ["sh: 1: tox: not found", "the command `tox`"],
  ["/bin/sh: 1: make: not found", "the command `make`"],
  ["bash: line 1: cargo: command not found", "the command `cargo`"],
  ["env: ‘python’: No such file or directory", "the command `python`"],
  ["sh: 1: /root/.local/bin/pytest: not found", "`/root/.local/bin/pytest`, which lies outside the system folders the sandbox shows"],
  ["sh: 1: /usr/local/bin/pytest: not found", "the command `/usr/local/bin/pytest`"],
  ["bash: line 1: ./run.sh: cannot execute: required file not found", "the interpreter that `./run.sh` names on its first line"],
  ["Error: Cannot find module 'left-pad'", "the Node package `left-pad`"],
  // The repository's own files missing is the code's business, not the environment's.
  ["Error: Cannot find module './lib/missing.js'", null],
  ["FAILED tests/test_x.py::test_y - AssertionError: 1 != 2", null],
  ["1 failed, 3 passed in 0.12s", null],
];

// Lines of runs that could not reach a host, as they print in bubblewrap's empty network here (Python 3.11 with requests
// 2.34 and urllib3 2.7, Node 20's http and fetch, curl 7.88, git, wget 1.21) and where a resolver answers that the name does not exist.
const unreached: [string, string][] = [
  ["socket.gaierror: [Errno -3] Temporary failure in name resolution", "the network"],
  ["E   socket.gaierror: [Errno -2] Name or service not known", "the network"],
  ["urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>", "the network"],
  [
    `requests.exceptions.ConnectionError: HTTPConnectionPool(host='httpbin.org', port=80): Max retries exceeded with url: /get (Caused by NameResolutionError("HTTPConnection(host='httpbin.org', port=80): Failed to resolve 'httpbin.org' ([Errno -3] Temporary failure in name resolution)"))`,
    "httpbin.org",
  ],
  // urllib3 1.26, as older pins of requests print it.
  [
    "E   requests.exceptions.ConnectionError: HTTPSConnectionPool(host='httpbin.org', port=443): Max retries exceeded with url: /status/200 (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known'))",
    "httpbin.org",
  ],
  ["Error: getaddrinfo EAI_AGAIN httpbin.org", "httpbin.org"],
  ["[cause]: Error: getaddrinfo ENOTFOUND api.example.com", "api.example.com"],
  ["curl: (6) Could not resolve host: httpbin.org", "httpbin.org"],
  ["fatal: unable to access 'https://github.com/psf/requests/': Could not resolve host: github.com", "github.com"],
  ["wget: unable to resolve host address ‘httpbin.org’", "httpbin.org"],
  ["OSError: [Errno 101] Network is unreachable", "the network"],
  ["Error: connect ENETUNREACH 93.184.216.34:80 - Local (0.0.0.0:0)", "the network"],
];

describe("readEnvironmentFailure", () => {
  it.each(unreached)("with network: %s", (line, name) => {
    const gap = readEnvironmentFailure(`============ FAILURES ============\n  ${line}\n`, { network: true });
    expect(gap).toMatchObject({ kind: "network", name, line });
  });

  it("reads no host unless asked: the tests before a change may fail on one and still be used", () => {
    for (const [line] of unreached) expect(readEnvironmentFailure(`${line}\n`)).toBeNull();
  });

  it("takes a missing thing before a host not reached, and a refused local server for neither", () => {
    const output = "E   socket.gaierror: [Errno -2] Name or service not known\nE   ModuleNotFoundError: No module named 'pytest_httpbin'\n";
    expect(readEnvironmentFailure(output, { network: true })).toMatchObject({ kind: "python-module", name: "pytest_httpbin" });
    expect(readEnvironmentFailure("Error: connect ECONNREFUSED 127.0.0.1:8000\n", { network: true })).toBeNull();
    expect(readEnvironmentFailure("FAILED tests/test_x.py::test_y - AssertionError: 1 != 2\n", { network: true })).toBeNull();
  });

  it("says that the sandbox has no network, by design, and that a reproduction must not need one", () => {
    const gap = readEnvironmentFailure("curl: (6) Could not resolve host: httpbin.org\n", { network: true })!;
    expect(describeEnvironmentGap(gap)).toBe(
      "the sandbox has no network for the tests and the reproductions, by design, so `httpbin.org` could not be reached (`curl: (6) Could not resolve host: httpbin.org`); a reproduction must not need one: it shows the issue with the repository's own code (a server it starts on 127.0.0.1, a fixture or a mock stands in for a remote host)",
    );
    const anonymous = readEnvironmentFailure("OSError: [Errno 101] Network is unreachable\n", { network: true })!;
    expect(describeEnvironmentGap(anonymous)).toMatch(/^the sandbox has no network for the tests and the reproductions, by design \(`OSError/);
  });

  it.each(cases)("%s", (line, missing) => {
    expect(readEnvironmentFailure(`collected 0 items\n${line}\n`)?.missing ?? null).toBe(missing);
  });

  it("says what is missing and where to declare it, quoting the line", () => {
    const gap = readEnvironmentFailure("/usr/bin/python3: No module named pytest\n")!;
    expect(describeEnvironmentGap(gap)).toBe(
      "the environment lacks the Python module `pytest` (`/usr/bin/python3: No module named pytest`); declare it with a setup step that installs it: `environment: setup:` in `.github/magis.yml` (or `setup_command`, `.devcontainer/devcontainer.json`, `copilot-setup-steps.yml`), run in the sandbox before the tests and the reproductions",
    );
  });
});
