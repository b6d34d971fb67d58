import { describe, expect, it } from "vitest";
import { compareTestRuns } from "../../../../src/pipeline/tests/compare-test-runs.js";
import type { TestRun } from "../../../../src/pipeline/types.js";

const run = (outcome: TestRun["outcome"], failures: string[] = [], counts: TestRun["counts"] = null): TestRun => ({
  outcome,
  exitCode: outcome === "passed" ? 0 : outcome === "failed" ? 1 : null,
  counts,
  failures,
  tail: "",
  durationMs: 1,
});

describe("compareTestRuns", () => {
  it("fixing the failing tests breaks nothing and lists them as fixed", () => {
    const verdict = compareTestRuns(run("failed", ["a", "b"]), run("passed"));
    expect(verdict).toMatchObject({ newFailures: [], fixed: ["a", "b"] });
    expect(verdict.breaks).toBeUndefined();
  });

  it("fixing some and leaving others failing breaks nothing", () => {
    expect(compareTestRuns(run("failed", ["a", "b"]), run("failed", ["b"])).breaks).toBeUndefined();
  });

  it("a test failing that did not before breaks, even while another is fixed", () => {
    const verdict = compareTestRuns(run("failed", ["a"]), run("failed", ["c"]));
    expect(verdict).toMatchObject({ newFailures: ["c"], fixed: ["a"] });
    expect(verdict.breaks).toBe("tests that did not fail before this change fail with it: `c`");
  });

  it("tests that all passed and now fail break, named or not", () => {
    expect(compareTestRuns(run("passed"), run("failed")).breaks).toBe("the tests passed before this change and fail with it");
    expect(compareTestRuns(run("passed"), run("failed", ["x"])).breaks).toBe("the tests passed before this change and fail with it: `x`");
  });

  it("more failures by count, when no names are known, break", () => {
    // A new test that fails, the old ones all still passing: no fewer pass, more fail.
    expect(compareTestRuns(run("failed", [], { passed: 3, failed: 1, skipped: 0 }), run("failed", [], { passed: 3, failed: 2, skipped: 0 })).breaks).toBe(
      "2 tests fail with this change, 1 before it",
    );
    expect(
      compareTestRuns(run("failed", [], { passed: 3, failed: 1, skipped: 0 }), run("failed", [], { passed: 4, failed: 1, skipped: 0 })).breaks,
    ).toBeUndefined();
  });

  it("fewer tests passing breaks, even when the failures named before are gone (a suite that no longer loads)", () => {
    const verdict = compareTestRuns(run("failed", ["a"], { passed: 50, failed: 1, skipped: 0 }), run("failed", [], { passed: 10, failed: 0, skipped: 0 }));
    expect(verdict.breaks).toBe("10 tests pass with this change, 50 before it");
  });

  it("tests that no longer finish, or no longer run, break", () => {
    expect(compareTestRuns(run("failed", ["a"]), run("timed-out")).breaks).toBe("the tests no longer finish in time with this change (they did before it)");
    expect(compareTestRuns(run("passed"), { ...run("error"), error: "it was killed by SIGSEGV" }).breaks).toBe(
      "the tests no longer run with this change (it was killed by SIGSEGV)",
    );
  });

  it("names with backticks cannot break out of their code span", () => {
    expect(compareTestRuns(run("failed"), run("failed", ["a`b"])).breaks).toContain("`a'b`");
  });
});
