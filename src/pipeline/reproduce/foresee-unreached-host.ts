import { describeEnvironmentGap, readEnvironmentFailure, readUnreachedHost } from "../tests/read-environment-failure.js";
import { COMMAND_CHARS, cutText } from "../tests/run-reproduction.js";
import type { IssueText, TestsReport } from "../types.js";

/** Whether a line of the issue (its title, body or hints) reports a host not reached: then such a failure is the issue's own. */
export function reportsUnreachedHost(issue: IssueText): boolean {
  const lines = `${issue.title}\n${issue.body}\n${issue.hints.join("\n")}`.split("\n");
  return lines.some((line) => readUnreachedHost(line.trim()) !== null);
}

/**
 * Why a reproduction would fail before any script is written, or null: the repository's tests, run on the untouched
 * checkout in the same sandbox the scripts run in, could not reach a host, and the issue reports no such failure. A
 * script showing the issue would meet the same sandbox, which gives no network to the tests and the reproductions, so
 * the way is static without writing and running one.
 */
export function foreseeUnreachedHost(issue: IssueText, tests: TestsReport | null | undefined): string | null {
  const before = tests?.before;
  if (before?.outcome !== "failed") return null;
  const gap = readEnvironmentFailure(before.tail, { network: true });
  if (gap?.kind !== "network" || reportsUnreachedHost(issue)) return null;
  // Many lines only say that a name did not resolve; one that names the host says which to do without.
  const named = before.tail
    .split("\n")
    .map((line) => readUnreachedHost(line.trim()))
    .find((found) => found && found.name !== "the network");
  return `the repository's tests (\`${cutText(tests!.command, COMMAND_CHARS)}\`) could not reach a host on the untouched checkout, and the scripts run in the same sandbox: ${describeEnvironmentGap(named ?? gap)}`;
}
