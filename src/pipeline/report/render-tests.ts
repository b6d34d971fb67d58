import { describeExit, listNames, runToShow } from "../tests/describe-test-verdict.js";
import type { TestRun, TestsReport } from "../types.js";
import { cell, codeCell, details, fence, neutralize, table } from "../../lib/markdown.js";

/** The pull request's "Tests" section: the command, the counts before and with the change, and the end of what still fails. */
export function renderTests(report: TestsReport): string {
  const command = `\`${codeCell(report.command)}\``;
  const lines = ["### Tests", ""];
  if (report.skipped) {
    lines.push(`${command} was not used: ${neutralize(report.skipped)}. The change was judged by the QA Engineers' reading alone.`);
    const shown = runToShow(report);
    if (shown?.run.tail) lines.push("", details(`The end of ${neutralize(shown.label)}`, fence(shown.run.tail, "text")));
    return lines.join("\n");
  }
  const before = report.before!;
  const after = report.after;
  lines.push(
    `${command} ran on the untouched checkout${report.setup ? ` (after \`${codeCell(report.setup)}\`)` : ""}${after ? " and with the whole change" : ""}:`,
    "",
  );
  lines.push(table(["", "Failed", "Passed", "Skipped", "Result"], [row("Before the change", before), ...(after ? [row("With the change", after.run)] : [])]));
  if (report.sandbox) lines.push("", `They ran ${neutralize(report.sandbox.description)}.`);
  const shown = runToShow(report);
  if (shown) lines.push("", details(`The end of ${neutralize(shown.label)}`, fence(shown.run.tail, "text")));
  if (!after) return lines.join("\n");
  const stillFailing = after.run.failures.filter((name) => before.failures.includes(name));
  if (after.fixed.length > 0) lines.push("", `Now passing: ${neutralize(listNames(after.fixed, 20))}.`);
  if (after.newFailures.length > 0) lines.push("", `Newly failing: ${neutralize(listNames(after.newFailures, 20))}.`);
  if (stillFailing.length > 0) lines.push("", `Still failing: ${neutralize(listNames(stillFailing, 20))}.`);
  if (after.breaks) lines.push("", `> **Warning:** the whole change breaks what worked: ${neutralize(after.breaks)}. Review it closely before merging.`);
  if (after.run.outcome !== "passed" && after.run.tail) lines.push("", details("Output with the change (end)", fence(after.run.tail, "text")));
  return lines.join("\n");
}

function row(label: string, run: TestRun): string[] {
  const count = (n: number | undefined) => (n === undefined ? "—" : String(n));
  return [label, count(run.counts?.failed), count(run.counts?.passed), count(run.counts?.skipped), cell(describeExit(run))];
}
