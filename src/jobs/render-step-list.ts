import { statusMarker } from "../github/status/status-comment.js";
import { details, fence, neutralize } from "../lib/markdown.js";
import { endOfText } from "../lib/tail-buffer.js";
import {
  describeAttemptTests,
  describeEnvironment,
  describeExit,
  describeSetupNetwork,
  describeReproduction,
  describeTestsReport,
  reproductionSettled,
  runToShow,
  summarizeCandidates,
} from "../pipeline/index.js";
import type { Attempt, EnvironmentReport, TestsReport } from "../pipeline/types.js";
import type { FailureNote, StatusState } from "./track-status.js";

/** A status comment as every job kind shows it while it runs: headings by outcome, a checklist, notes, the failure and a footer. */
export interface StepList {
  jobId: number;
  /** The heading while it runs (or once it is done), after a failure, and after a stop. */
  headings: { running: string; failed: string; stopped: string };
  /** The checklist, each line made with `check` (nested lines start with two spaces). */
  steps: string[];
  /** Paragraphs after the checklist, before the failure. */
  notes?: string[];
  failure?: FailureNote;
  /** The small print: the run's number and its trigger. */
  footer: string;
  /** The run's session page, linked in the small print when the page is on. */
  sessionUrl?: string;
}

/** A status comment as Markdown: the marker, the heading its outcome calls for, the checklist, the notes, the failure and the footer. */
export function renderStepList(list: StepList): string {
  const { failure, headings } = list;
  const heading = failure ? (failure.cancelled ? headings.stopped : headings.failed) : headings.running;
  const lines = [statusMarker(list.jobId), heading, "", ...list.steps];
  for (const note of list.notes ?? []) lines.push("", note);
  if (failure) lines.push("", ...failureLines(failure));
  lines.push("", smallPrint(list.footer, list.sessionUrl));
  return lines.join("\n");
}

/** A status comment's last line: the run's number and trigger, and the link to its session page when there is one. */
export function smallPrint(footer: string, sessionUrl?: string): string {
  return `<sub>${footer}${sessionUrl ? ` · [Session](${sessionUrl})` : ""}</sub>`;
}

/** The checklist items both kinds share: the Developers and QA Engineers at work, each task's line, and the tests. */
export function codingSteps(state: StatusState): string[] {
  const coded = state.attempts.length > 0 && state.attempts.every((t) => t.outcome);
  const lines = [check(coded, "Developers and QA Engineers at work"), ...state.attempts.map((task) => `  - ${taskLine(task)}`)];
  if (state.tests) lines.push(testsLine(state.tests));
  return lines;
}

/**
 * The checklist item of the repository's environment, once it is ready or failed (from the tests' report, else the
 * reproduction's): where it was declared, built or reused, and the hosts its setup reached and was refused, nested.
 */
export function environmentSteps(state: StatusState): string[] {
  const environment: EnvironmentReport | undefined = state.tests?.environment ?? state.reproduction?.environment;
  if (!environment) return [];
  const network = describeSetupNetwork(environment.network);
  return [check(true, neutralize(describeEnvironment(environment))), ...(network ? [`  - ${neutralize(network)}`] : [])];
}

/** The checklist item of the way the run takes and its reproduction, when the Manager has chosen. */
export function reproductionSteps(state: StatusState): string[] {
  return state.reproduction ? [check(reproductionSettled(state.reproduction), neutralize(describeReproduction(state.reproduction)))] : [];
}

/** The end of a run's output a status comment shows: enough to see what went wrong, short enough to read there. */
const STATUS_TAIL_CHARS = 1_500;

/**
 * The checklist item of the repository's tests: done once they were judged with the change, or set aside. When they
 * were set aside or could not be read, the end of the output that says why follows, folded, inside the item.
 */
export function testsLine(tests: TestsReport): string {
  const line = check(tests.skipped !== undefined || tests.after !== undefined, neutralize(describeTestsReport(tests)));
  const shown = runToShow(tests);
  if (!shown) return line;
  const block = details(`The end of ${neutralize(shown.label)}`, fence(endOfText(shown.run.tail, STATUS_TAIL_CHARS), "text"));
  return [line, ...block.split("\n").map((text) => (text === "" ? "" : `  ${text}`))].join("\n");
}

/** One checklist item. */
export function check(done: boolean, text: string): string {
  return `- [${done ? "x" : " "}] ${text}`;
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
  if (attempt.error) return `attempt ${attempt.number} refused${attempt.candidates ? ` (${summarizeCandidates(attempt.candidates)})` : ""}`;
  if (!attempt.review) return `attempt ${attempt.number} in review`;
  const runs = [
    ...(attempt.candidates ? [summarizeCandidates(attempt.candidates)] : []),
    ...(attempt.tests ? [`tests: ${neutralize(describeAttemptTests(attempt.tests))}`] : []),
    ...(attempt.reproduction ? [`reproduction: ${describeExit(attempt.reproduction)}`] : []),
  ];
  const tests = runs.length > 0 ? ` (${runs.join("; ")})` : "";
  return `attempt ${attempt.number} ${attempt.review.approved ? "✅" : "↩️ revise"}${tests}`;
}

/** `n` and the word for it: "1 file", "2 files". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The lines that say where a run failed, why, and what to do; the reason may quote model output. */
export function failureLines(failure: { stage: string; reason: string; nextStep: string; cancelled?: boolean }): string[] {
  return [
    `**${failure.cancelled ? "Stopped at" : "Failed at"}:** ${failure.stage}`,
    `**Why:** ${neutralize(failure.reason)}`,
    `**Next step:** ${neutralize(failure.nextStep)}`,
  ];
}
