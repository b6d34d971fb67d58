import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTestOutput } from "../../../src/lib/read-test-output.js";

// Outputs captured from the real tools (node 20 --test, pytest 9, python -m unittest, vitest 4, cargo test), with
// colours where the tool printed them.
const fixture = (name: string) => fs.readFileSync(path.resolve(import.meta.dirname, "../../fixtures/test-output", name), "utf8");

describe("readTestOutput on real runners' output", () => {
  it.each([
    ["node-tap.txt", { passed: 1, failed: 1, skipped: 1 }, ["fails here"]],
    ["node-spec.txt", { passed: 1, failed: 1, skipped: 1 }, ["fails here"]],
    ["pytest.txt", { passed: 2, failed: 2, skipped: 1 }, ["test_x.py::test_fails", "test_x.py::TestThing::test_bad"]],
    ["pytest-q.txt", { passed: 2, failed: 2, skipped: 1 }, ["test_x.py::test_fails", "test_x.py::TestThing::test_bad"]],
    ["unittest.txt", { passed: 1, failed: 2, skipped: 1 }, ["test_u.TestThing.test_err", "test_u.TestThing.test_bad"]],
    ["vitest.txt", { passed: 1, failed: 1, skipped: 1 }, ["x.test.ts > math > fails here"]],
    ["cargo.txt", { passed: 1, failed: 1, skipped: 1 }, ["tests::fails_here"]],
  ])("%s", (file, counts, failures) => {
    expect(readTestOutput(fixture(file))).toEqual({ counts, failures });
  });
});

describe("readTestOutput on the documented formats of other runners", () => {
  it("jest: the Tests line and the ● headings of failures", () => {
    const out = [
      "  ● cart › adds quantities",
      "",
      "    expect(received).toBe(expected)",
      "Test Suites: 1 failed, 1 total",
      "Tests:       1 failed, 1 skipped, 3 passed, 5 total",
    ].join("\n");
    expect(readTestOutput(out)).toEqual({ counts: { passed: 3, failed: 1, skipped: 1 }, failures: ["cart › adds quantities"] });
  });

  it("mocha: passing, failing and pending counts", () => {
    expect(readTestOutput("  3 passing (12ms)\n  1 pending\n  2 failing\n").counts).toEqual({ passed: 3, failed: 2, skipped: 1 });
  });

  it("rspec: examples and failures, and the rerun lines that name them", () => {
    const out =
      "5 examples, 2 failures, 1 pending\n\nFailed examples:\n\nrspec ./spec/cart_spec.rb:12 # Cart adds\nrspec ./spec/cart_spec.rb:20 # Cart rounds\n";
    expect(readTestOutput(out)).toEqual({ counts: { passed: 2, failed: 2, skipped: 1 }, failures: ["./spec/cart_spec.rb:12", "./spec/cart_spec.rb:20"] });
  });

  it("go test -v: one line per test, added up", () => {
    const out =
      "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n=== RUN   TestSub\n--- FAIL: TestSub (0.00s)\n    --- FAIL: TestSub/neg (0.00s)\n--- SKIP: TestMul (0.00s)\nFAIL\n";
    expect(readTestOutput(out)).toEqual({ counts: { passed: 1, failed: 2, skipped: 1 }, failures: ["TestSub", "TestSub/neg"] });
  });

  it("cargo: one summary per crate, added up", () => {
    const out =
      "test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured\ntest a::b ... FAILED\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured\n";
    expect(readTestOutput(out)).toEqual({ counts: { passed: 6, failed: 1, skipped: 1 }, failures: ["a::b"] });
  });

  it("unittest that passes: OK, and the run count gives the passed ones", () => {
    expect(readTestOutput("....\n----\nRan 4 tests in 0.002s\n\nOK\n").counts).toEqual({ passed: 4, failed: 0, skipped: 0 });
  });

  it("TAP todo and skip directives are not failures", () => {
    expect(readTestOutput("not ok 1 - later # TODO not yet\nnot ok 2 - broken\n# pass 0\n# fail 1\n").failures).toEqual(["broken"]);
  });
});

describe("readTestOutput on output it does not know, or cannot trust", () => {
  it("no counts and no names from an unknown runner", () => {
    expect(readTestOutput("Everything is fine\nexit status 1\n")).toEqual({ counts: null, failures: [] });
  });

  it("the last summary of a one-summary format wins (a runner that prints a progress summary first)", () => {
    expect(readTestOutput("# pass 1\n# fail 3\n# pass 4\n# fail 0\n").counts).toEqual({ passed: 4, failed: 0, skipped: 0 });
  });

  it("keeps at most 200 names of at most 200 characters, and reads a 5 MB line in linear time", () => {
    const many = Array.from({ length: 500 }, (_, i) => `not ok ${i + 1} - test ${i} ${"x".repeat(300)}`).join("\n");
    const { failures } = readTestOutput(many);
    expect(failures).toHaveLength(200);
    expect(failures.every((name) => name.length <= 200)).toBe(true);
    const started = performance.now();
    readTestOutput(`not ok 1 - ${" ".repeat(5_000_000)}#`);
    readTestOutput(`FAIL ${"a > ".repeat(1_000_000)}`);
    // A catastrophic pattern would take minutes here; this bound only guards against that, not a speed target.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
