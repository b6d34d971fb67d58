import { neutralize } from "../../../lib/markdown.js";
import { check, codingSteps, environmentSteps, plural, renderStepList, reproductionSteps } from "../../render-step-list.js";
import type { StatusState } from "../../track-status.js";

/** What an issue run's status shows besides every run's: the wait for the plan's approval, and a question asked. */
export interface ResolveStatus extends StatusState {
  /** While the job waits for `/magis go`: until when (ms since the epoch), the minutes it waits, and the plan (Markdown). */
  planWait?: { until: number; minutes: number; summary: string };
  /** Who approved the plan, once someone did. */
  approvedBy?: string;
  /** The question the Manager asked the issue's author instead of acting, and who that is. */
  question?: { text: string; author: string };
}

/** The status comment of a run as Markdown: a checklist of stages, each task's attempts and verdict, then the PR or the failure. */
export function renderStatus(state: ResolveStatus): string {
  const kickoff = state.kickoffTurns === undefined ? "Kick-off meeting" : `Kick-off meeting held (${plural(state.kickoffTurns, "speech", "speeches")})`;
  const asOf = state.issueAsOf ? ` · works from the issue as it was at ${state.issueAsOf}; later edits are not read` : "";
  const needsHuman = state.needsHuman?.length
    ? [
        `**Not a complete fix:** protected files need a human: ${state.needsHuman.map((p) => `\`${p}\``).join(", ")} (what must change there is in the pull request).`,
      ]
    : [];
  return renderStepList({
    jobId: state.jobId,
    headings: {
      running: runningHeading(state),
      failed: "### 😕 MAGIS could not finish this run",
      stopped: "### ⏹️ MAGIS stopped this run",
    },
    steps: [
      check(state.located !== undefined, locatedLine(state)),
      ...environmentSteps(state),
      ...reproductionSteps(state),
      check(state.developers !== undefined, teamLine(state)),
      check(state.kickoffTurns !== undefined, kickoff),
      ...(state.approvedBy ? [check(true, `Plan approved by @${state.approvedBy}`)] : []),
      ...codingSteps(state),
      check(state.pullRequest !== undefined, pullRequestLine(state)),
    ],
    notes: [...planNotes(state), ...needsHuman, ...(state.warnings ?? []).map((warning) => `⚠️ ${warning}`)],
    failure: state.failure,
    footer: `Run #${state.jobId} · ${state.trigger}${asOf}`,
    sessionUrl: state.sessionUrl,
  });
}

function runningHeading(state: ResolveStatus): string {
  if (state.pullRequest) return "### 🚀 MAGIS opened a pull request";
  if (state.question) return "### ❓ MAGIS asked a question before working on this";
  if (state.planWait && !state.failure) return "### ✋ MAGIS waits for its plan to be approved";
  return "### 👀 MAGIS is working on this";
}

/** The plan and how to approve it while the job waits; the question and how to go on once it was asked. */
function planNotes(state: ResolveStatus): string[] {
  if (state.question) {
    return [
      `The Manager could not tell from the issue what to change, so it asked @${state.question.author} (comment below) and wrote no code.`,
      "Once the question is answered in a comment, `/magis retry` runs again with the answer as a hint.",
    ];
  }
  if (!state.planWait || state.failure) return [];
  const until = new Date(state.planWait.until).toISOString().slice(0, 16).replace("T", " ");
  // The Go button is only there when the session pages are on (the comment then links the page).
  const onPage = state.sessionUrl ? ", or use the Go button on the session page" : "";
  return [
    state.planWait.summary,
    `No code is written until someone who may trigger MAGIS approves this plan: comment \`/magis go\` (anything after it on the line goes to the Developers as guidance)${onPage}. The job waits until ${until} UTC (${plural(state.planWait.minutes, "minute", "minutes")}); \`/magis retry [guidance]\` plans again.`,
  ];
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

function pullRequestLine(state: StatusState): string {
  if (!state.pullRequest) return "Open the pull request";
  return `Pull request ${state.pullRequest.updated ? "updated" : "opened"}: #${state.pullRequest.number} (${state.pullRequest.url})`;
}
