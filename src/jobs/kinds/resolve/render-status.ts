import { neutralize } from "../../../lib/markdown.js";
import { check, codingSteps, environmentSteps, plural, renderStepList, reproductionSteps } from "../../render-step-list.js";
import type { StatusState } from "../../track-status.js";

/** The status comment of a run as Markdown: a checklist of stages, each task's attempts and verdict, then the PR or the failure. */
export function renderStatus(state: StatusState): string {
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
      running: state.pullRequest ? "### 🚀 MAGIS opened a pull request" : "### 👀 MAGIS is working on this",
      failed: "### 😕 MAGIS could not finish this run",
      stopped: "### ⏹️ MAGIS stopped this run",
    },
    steps: [
      check(state.located !== undefined, locatedLine(state)),
      ...environmentSteps(state),
      ...reproductionSteps(state),
      check(state.developers !== undefined, teamLine(state)),
      check(state.kickoffTurns !== undefined, kickoff),
      ...codingSteps(state),
      check(state.pullRequest !== undefined, pullRequestLine(state)),
    ],
    notes: [...needsHuman, ...(state.warnings ?? []).map((warning) => `⚠️ ${warning}`)],
    failure: state.failure,
    footer: `Run #${state.jobId} · ${state.trigger}${asOf}`,
    sessionUrl: state.sessionUrl,
  });
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
