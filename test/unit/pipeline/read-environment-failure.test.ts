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

describe("readEnvironmentFailure", () => {
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
