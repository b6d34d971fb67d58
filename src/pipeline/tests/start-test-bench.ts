import type { EnvironmentReport, StageContext, TestsReport } from "../types.js";
import { openTestBench, type TestBench } from "./open-test-bench.js";
import { openWorkbench, type ChangedFile, type OpenedWorkbench } from "./open-workbench.js";
import { showServersTheEnvironment } from "../with-language-servers.js";

/**
 * The workbench being prepared in the background, and the tests on it: `ready` when they ran on the untouched checkout,
 * `close` in every case.
 */
export interface StartedTests {
  /** The report so far and the bench (null when the tests are not used); null when no `test_command` is set. Never rejects. */
  ready: Promise<{ report: TestsReport; bench: TestBench | null } | null>;
  /** The workbench (the set-up copy in the sandbox), opened on the first call when the tests did not open it. Never rejects. */
  workbench(): Promise<OpenedWorkbench>;
  /**
   * The environment the commands ran in, once keeping it for later jobs has ended; undefined when the repository declares
   * none or the workbench was never opened. Never rejects.
   */
  environment(): Promise<EnvironmentReport | undefined>;
  /** The tests' report with the whole change judged (when they are used and there is a change); reported as a `tests` event. */
  judge(changes: readonly ChangedFile[]): Promise<TestsReport | undefined>;
  /** Stops a setup or a command still going, waits for it, and removes the copy the commands ran in. */
  close(): Promise<void>;
}

/**
 * Starts setting up the workbench and running the repository's tests on it while the agents read the issue and plan (the
 * commands wait on the machine, the agents on the model), and reports the first run as a `tests` progress event. Without
 * a `test_command`, the workbench is set up only when a stage asks for it (the reproduction). A failure to prepare it (a
 * full disk, an unreadable file) becomes the reason it is not used; the run goes on.
 */
export function startTestBench(ctx: StageContext): StartedTests {
  const stop = new AbortController();
  const policy = ctx.commands;
  const commands = policy?.allowed ? { ...policy, signal: policy.signal ? AbortSignal.any([policy.signal, stop.signal]) : stop.signal } : policy;
  let opening: Promise<OpenedWorkbench> | null = null;
  const workbench = () =>
    (opening ??= openWorkbench({ ...ctx, commands })
      .then((opened) => {
        // The language servers learn the environment's packages before the tests are queued on the copy.
        if (opened.ok) showServersTheEnvironment(ctx, opened.workbench);
        return opened;
      })
      .catch((error: unknown): OpenedWorkbench => ({
        ok: false,
        why: `they could not be prepared: ${error instanceof Error ? error.message : String(error)}`,
      })));
  const ready = !ctx.config.test_command
    ? Promise.resolve(null)
    : workbench()
        .then((opened) => {
          // The environment is ready (or failed): said at once, before the first run of the tests.
          if (opened.ok && opened.workbench.environment && !stop.signal.aborted) {
            const { sandbox, environment } = opened.workbench;
            ctx.onProgress({ stage: "tests", tests: { command: ctx.config.test_command!, sandbox, environment } });
          }
          return openTestBench(ctx, opened);
        })
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
    workbench,
    judge: async (changes) => {
      const opened = await ready;
      if (!opened?.bench || changes.length === 0) return opened?.report;
      const report = { ...opened.report, after: await opened.bench.check(changes) };
      ctx.onProgress({ stage: "tests", tests: report });
      return report;
    },
    environment: async () => {
      const opened = await opening;
      if (!opened) return undefined;
      return opened.ok ? await opened.workbench.settled() : opened.environment;
    },
    close: async () => {
      stop.abort();
      await ready;
      const opened = await opening;
      if (opened?.ok) {
        await opened.workbench.settled();
        opened.workbench.dispose();
      }
    },
  };
}
