import type { TestRun, TestsReport, TestVerdict } from "../types.js";
import { codeSpan, fence } from "../../lib/markdown.js";

// The QA Engineer reads the end of the output only when something fails: the part that says what.
const MODEL_TAIL_CHARS = 2_500;

/** Test names for a sentence, as code spans: the first few, then how many more. */
export function listNames(names: string[], max = 5): string {
  const shown = names.slice(0, max).map(codeSpan).join(", ");
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/** A run in a few words: the runner's counts when known ("2 failed, 5 passed"), else how it ended ("failed, exit 1"). */
export function describeCounts(run: TestRun): string {
  if (!run.counts || run.outcome === "timed-out" || run.outcome === "error") return describeExit(run);
  const { passed, failed, skipped } = run.counts;
  return [`${failed} failed`, `${passed} passed`, ...(skipped > 0 ? [`${skipped} skipped`] : [])].join(", ");
}

/** An attempt's test run in a few words, with what it broke: "2 failed, 2 passed; newly failing: `x`". */
export function describeAttemptTests(verdict: TestVerdict): string {
  const counts = describeCounts(verdict.run);
  if (verdict.newFailures.length > 0) return `${counts}; newly failing: ${listNames(verdict.newFailures, 3)}`;
  return verdict.breaks ? `${counts}; ${verdict.breaks}` : counts;
}

/** How a run ended: "passed (exit 0)", "failed (exit 1)", "did not finish in time" (within N s), "could not run (…)". */
export function describeExit(run: TestRun, timeoutSeconds?: number): string {
  if (run.outcome === "timed-out") return timeoutSeconds ? `did not finish within ${timeoutSeconds} s and was stopped` : "did not finish in time";
  if (run.outcome === "error") return `could not run (${run.error ?? "no exit status"})`;
  return run.outcome === "passed" ? "passed (exit 0)" : `failed (exit ${run.exitCode})`;
}

/** The tests' verdict on one attempt, as the QA Engineer and the Developer's next attempt read it. */
export function describeVerdictForModel(command: string, before: TestRun, verdict: TestVerdict): string {
  const lines = [
    `The repository's tests (\`${command}\`) ran with this change, together with the kept changes of earlier plan steps.`,
    `- Before the change: ${describeCounts(before)}${before.failures.length > 0 ? ` (failing: ${listNames(before.failures)})` : ""}.`,
    `- With the change: ${describeCounts(verdict.run)}${verdict.run.failures.length > 0 ? ` (failing: ${listNames(verdict.run.failures)})` : ""}.`,
  ];
  if (verdict.fixed.length > 0) lines.push(`- Now passing: ${listNames(verdict.fixed)}.`);
  if (verdict.newFailures.length > 0) lines.push(`- Newly failing: ${listNames(verdict.newFailures)}.`);
  if (verdict.breaks) lines.push(`- This change breaks what worked: ${verdict.breaks}. A change that breaks passing tests is never approved.`);
  if (verdict.run.outcome !== "passed" && verdict.run.tail) {
    const tail = verdict.run.tail.length > MODEL_TAIL_CHARS ? `…${verdict.run.tail.slice(-MODEL_TAIL_CHARS)}` : verdict.run.tail;
    lines.push("", "The end of the test output with the change:", fence(tail, "text"));
  }
  return lines.join("\n");
}

/** Where the tests of a run stand, in one line: not used and why, the run before the change, or the run with it. */
export function describeTestsReport(report: TestsReport): string {
  const tests = `Tests (\`${report.command}\`${report.sandbox ? `, ${report.sandbox.label}` : ""})`;
  if (report.skipped) return `${tests} not used: ${report.skipped}`;
  if (!report.after) return `${tests} before the change: ${report.before ? describeCounts(report.before) : "running"}`;
  const { after } = report;
  const notes = [
    ...(after.fixed.length > 0 ? [`now passing: ${listNames(after.fixed)}`] : []),
    ...(after.breaks ? [`**breaks what worked:** ${after.breaks}`] : []),
  ];
  return `${tests} with the change: ${describeCounts(after.run)}, before it: ${describeCounts(report.before!)}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}

/**
 * The run whose output tells why the tests were set aside or could not be read, for the status comment and the CLI to
 * show the end of: the failed setup, else the run before the change when the tests were set aside or failed with no
 * counts to read. Null when the report's line says enough.
 */
export function runToShow(report: TestsReport): { label: string; run: TestRun } | null {
  if (report.setupRun && report.setupRun.outcome !== "passed") return { label: `the output of \`${report.setup ?? ""}\``, run: report.setupRun };
  const { before } = report;
  if (!before || before.outcome === "passed" || !before.tail) return null;
  return report.skipped || !before.counts ? { label: "the output of the tests before the change", run: before } : null;
}
