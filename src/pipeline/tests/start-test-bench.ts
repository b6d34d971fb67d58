import type { StageContext, TestsReport } from "../types.js";
import { openTestBench, type ChangedFile, type TestBench } from "./open-test-bench.js";

/** The tests being prepared in the background: `ready` when they ran on the untouched checkout, `close` in every case. */
export interface StartedTests {
  /** The report so far and the bench (null when the tests are not used); null when no `test_command` is set. Never rejects. */
  ready: Promise<{ report: TestsReport; bench: TestBench | null } | null>;
  /** The tests' report with the whole change judged (when they are used and there is a change); reported as a `tests` event. */
  judge(changes: readonly ChangedFile[]): Promise<TestsReport | undefined>;
  /** Stops a setup or test run still going, waits for it, and removes the copy the tests ran in. */
  close(): Promise<void>;
}

/**
 * Starts setting up and running the repository's tests while the agents read the issue and plan (the tests wait on the
 * machine, the agents on the model), and reports the first run as a `tests` progress event. A failure to prepare them
 * (a full disk, an unreadable file) becomes the reason they are not used; the run goes on.
 */
export function startTestBench(ctx: StageContext): StartedTests {
  const stop = new AbortController();
  const policy = ctx.commands;
  const commands = policy?.allowed ? { ...policy, signal: policy.signal ? AbortSignal.any([policy.signal, stop.signal]) : stop.signal } : policy;
  const ready = openTestBench({ ...ctx, commands })
    .catch((error: unknown) => ({
      report: { command: ctx.config.test_command!, skipped: `they could not be prepared: ${error instanceof Error ? error.message : String(error)}` },
      bench: null,
    }))
    .then((opened) => {
      if (opened && !stop.signal.aborted) ctx.onProgress({ stage: "tests", tests: opened.report });
      return opened;
    });
  return {
    ready,
    judge: async (changes) => {
      const opened = await ready;
      if (!opened?.bench || changes.length === 0) return opened?.report;
      const report = { ...opened.report, after: await opened.bench.check(changes) };
      ctx.onProgress({ stage: "tests", tests: report });
      return report;
    },
    close: async () => {
      stop.abort();
      (await ready)?.bench?.dispose();
    },
  };
}
