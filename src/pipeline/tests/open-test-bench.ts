import type { StageContext, TestRun, TestsReport, TestVerdict } from "../types.js";
import { compareTestRuns } from "./compare-test-runs.js";
import { describeExit } from "./describe-test-verdict.js";
import { isBrokenRun } from "./make-workbench.js";
import type { ChangedFile, OpenedWorkbench, Workbench } from "./open-workbench.js";
import { describeEnvironmentGap, readEnvironmentFailure } from "./read-environment-failure.js";

export type { ChangedFile } from "./open-workbench.js";

/** The repository's tests, ready to judge changes: set up once, run once on the untouched checkout. */
export interface TestBench {
  /** The command that runs the tests. */
  readonly command: string;
  /** The run on the untouched checkout, which every later run is compared with. */
  readonly before: TestRun;
  /** Runs the tests with these files changed, one run at a time; the same set of changes is run only once. */
  check(changes: readonly ChangedFile[]): Promise<TestVerdict>;
}

/**
 * Runs `test_command` on the untouched copy of the workbench. Returns the report so far and, when the tests ran to an
 * end, the bench that judges changes. When the workbench could not be opened (code may not run here, the setup failed)
 * or the first run did not finish or could not start for the environment's reasons (the test runner not installed), the
 * report says why and there is no bench: the run goes on without tests. Null when no `test_command` is set.
 */
export async function openTestBench(ctx: StageContext, opened: OpenedWorkbench): Promise<{ report: TestsReport; bench: TestBench | null } | null> {
  const { test_command: command, setup_command: setup } = ctx.config;
  if (!command) return null;
  const report: TestsReport = { command, ...(setup ? { setup } : {}) };
  if (!opened.ok) {
    // The step that failed is the setup the report shows the end of.
    const { why, setup: failed, setupRun, sandbox, environment } = opened;
    const shown = {
      ...(failed ? { setup: failed } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(setupRun ? { setupRun } : {}),
      ...(environment ? { environment } : {}),
    };
    return { report: { ...report, ...shown, skipped: why }, bench: null };
  }
  const { workbench } = opened;
  report.sandbox = workbench.sandbox;
  if (workbench.environment) report.environment = workbench.environment;
  const before = await workbench.run(command, []);
  if (before.outcome === "timed-out" || before.outcome === "error") {
    return {
      report: { ...report, before, skipped: `the tests ${describeExit(before, ctx.config.test_timeout_seconds)} on the untouched checkout` },
      bench: null,
    };
  }
  // A run on the untouched checkout that failed for want of its tools says nothing a change could improve on.
  const gap = before.outcome === "failed" ? readEnvironmentFailure(before.tail) : null;
  if (gap) return { report: { ...report, before, skipped: `the tests could not start: ${describeEnvironmentGap(gap)}` }, bench: null };
  return { report: { ...report, before }, bench: makeBench(workbench, command, before) };
}

function makeBench(workbench: Workbench, command: string, before: TestRun): TestBench {
  // One verdict per run: the workbench runs a set of changes once, and its verdict is the same object every time.
  const verdicts = new WeakMap<TestRun, TestVerdict>();
  return {
    command,
    before,
    async check(changes) {
      const run = await workbench.run(command, changes);
      let verdict = verdicts.get(run);
      // A copy that can no longer be trusted says nothing of the change: the tests could not run, and nothing is refused.
      if (!verdict) verdicts.set(run, (verdict = isBrokenRun(run) ? { run, newFailures: [], fixed: [] } : compareTestRuns(before, run)));
      return verdict;
    },
  };
}
