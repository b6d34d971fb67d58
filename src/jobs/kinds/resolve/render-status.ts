import { neutralize } from "../../../lib/markdown.js";
import { describeAttemptTests, describeTestsReport } from "../../../pipeline/tests/describe-test-verdict.js";
import type { Attempt, TestsReport } from "../../../pipeline/types.js";
import type { StatusState } from "../../track-status.js";

/** The hidden marker that finds the status comment of job `jobId` again. */
export function statusMarker(jobId: number): string {
  return `<!-- magis:status job=${jobId} -->`;
}

/** Reads the job id back from a comment body carrying a status marker, or null. */
export function readStatusMarker(body: string | null | undefined): number | null {
  const match = /<!-- magis:status job=(\d+) -->/.exec(body ?? "");
  return match ? Number(match[1]) : null;
}

/** The status comment of a run as Markdown: a checklist of stages, each task's attempts and verdict, then the PR or the failure. */
export function renderStatus(state: StatusState): string {
  const heading = state.failure
    ? state.failure.cancelled
      ? "### ⏹️ MAGIS stopped this run"
      : "### 😕 MAGIS could not finish this run"
    : state.pullRequest
      ? "### 🚀 MAGIS opened a pull request"
      : "### 👀 MAGIS is working on this";
  const lines = [statusMarker(state.jobId), heading, ""];
  lines.push(check(state.located !== undefined, locatedLine(state)));
  lines.push(check(state.developers !== undefined, teamLine(state)));
  lines.push(
    check(
      state.kickoffTurns !== undefined,
      state.kickoffTurns === undefined ? "Kick-off meeting" : `Kick-off meeting held (${plural(state.kickoffTurns, "speech", "speeches")})`,
    ),
  );
  const coded = state.attempts.length > 0 && state.attempts.every((t) => t.outcome);
  lines.push(check(coded, "Developers and QA Engineers at work"));
  for (const task of state.attempts) lines.push(`  - ${taskLine(task)}`);
  if (state.tests) lines.push(testsLine(state.tests));
  lines.push(check(state.pullRequest !== undefined, pullRequestLine(state)));
  if (state.needsHuman?.length) {
    lines.push(
      "",
      `**Not a complete fix:** protected files need a human: ${state.needsHuman.map((p) => `\`${p}\``).join(", ")} (what must change there is in the pull request).`,
    );
  }
  if (state.failure) lines.push("", ...failureLines(state.failure));
  const asOf = state.issueAsOf ? ` · works from the issue as it was at ${state.issueAsOf}; later edits are not read` : "";
  lines.push("", `<sub>Run #${state.jobId} · ${state.trigger}${asOf}</sub>`);
  return lines.join("\n");
}

/** The checklist item of the repository's tests: done once they were judged with the change, or set aside. */
export function testsLine(tests: TestsReport): string {
  return check(tests.skipped !== undefined || tests.after !== undefined, neutralize(describeTestsReport(tests)));
}

/** One checklist item. */
export function check(done: boolean, text: string): string {
  return `- [${done ? "x" : " "}] ${text}`;
}

function locatedLine(state: StatusState): string {
  if (!state.located) return "Locate the relevant files";
  const kept = state.located.filter((f) => f.kept !== false);
  const names = kept
    .slice(0, 8)
    .map((f) => `\`${f.path}\``)
    .join(", ");
  const more = kept.length > 8 ? ` and ${kept.length - 8} more` : "";
  return `Located ${plural(kept.length, "file", "files")} (of ${plural(state.located.length, "candidate", "candidates")})${kept.length ? `: ${names}${more}` : ""}`;
}

function teamLine(state: StatusState): string {
  if (!state.developers) return "Form the team";
  return `Team formed: ${plural(state.developers.length, "developer", "developers")} (${state.developers.map((d) => neutralize(d.name)).join(", ")})`;
}

/** One task's line in a status checklist: file, developer, each attempt's verdict, and the task's outcome. */
export function taskLine(task: StatusState["attempts"][number]): string {
  const who = task.developer ? ` (${neutralize(task.developer)})` : "";
  const tries = task.attempts.map(attemptText).join(", ") || "waiting";
  const verdict = task.outcome
    ? task.outcome.approved
      ? " — **approved**"
      : task.outcome.kept
        ? " — kept without approval"
        : " — **not approved**, left out"
    : "";
  return `\`${task.path}\`${who}: ${tries}${verdict}`;
}

function attemptText(attempt: Attempt): string {
  if (attempt.error) return `attempt ${attempt.number} refused`;
  if (!attempt.review) return `attempt ${attempt.number} in review`;
  const tests = attempt.tests ? ` (tests: ${neutralize(describeAttemptTests(attempt.tests))})` : "";
  return `attempt ${attempt.number} ${attempt.review.approved ? "✅" : "↩️ revise"}${tests}`;
}

function pullRequestLine(state: StatusState): string {
  if (!state.pullRequest) return "Open the pull request";
  return `Pull request ${state.pullRequest.updated ? "updated" : "opened"}: #${state.pullRequest.number} (${state.pullRequest.url})`;
}

/** `n` and the word for it: "1 file", "2 files". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A status comment whose run was cut off (the app restarted): the checklist so far, marked failed with the next step. */
export function renderInterrupted(previousBody: string, jobId: number, failure: { stage: string; reason: string; nextStep: string }): string {
  const kept = previousBody
    .split("\n")
    .filter((line) => line.startsWith("- [") || line.startsWith("  - "))
    .join("\n");
  return [statusMarker(jobId), "### 😕 MAGIS could not finish this run", "", kept, "", ...failureLines(failure)].join("\n");
}

/** The lines that say where a run failed, why, and what to do; the reason may quote model output. */
export function failureLines(failure: { stage: string; reason: string; nextStep: string; cancelled?: boolean }): string[] {
  return [
    `**${failure.cancelled ? "Stopped at" : "Failed at"}:** ${failure.stage}`,
    `**Why:** ${neutralize(failure.reason)}`,
    `**Next step:** ${neutralize(failure.nextStep)}`,
  ];
}
