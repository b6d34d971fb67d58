import { describeExit } from "../tests/describe-test-verdict.js";
import type { ReproductionReport } from "../types.js";

/** Whether the way's line is settled: the static way, the fallback to it, or the reproduction run with the whole change. */
export function reproductionSettled(report: ReproductionReport): boolean {
  return report.choice.way === "static" || report.fallback !== undefined || report.after !== undefined;
}

/** Where the way and the reproduction stand, in one line (the status comment, the CLI). */
export function describeReproduction(report: ReproductionReport): string {
  const { choice } = report;
  if (choice.way === "static") return `Way: static (${choice.reason})`;
  if (report.fallback) return `Way: static after all: the issue was not reproduced: ${report.fallback} (the Manager had chosen dynamic: ${choice.reason})`;
  if (!report.reproduced) return `Way: dynamic (${choice.reason}); reproducing the issue`;
  const { script, before } = report.reproduced;
  const shown = `Way: dynamic: reproduced by \`${script.command}\`, which ${describeExit(before)} on the untouched code`;
  if (!report.after) return shown;
  return `${shown}; with the change it ${describeExit(report.after)}: ${report.after.outcome === "passed" ? "the issue is gone" : "**the issue still shows**"}`;
}
