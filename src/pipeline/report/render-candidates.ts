import { details, fence, neutralize } from "../../lib/markdown.js";
import { endSentence } from "../../lib/end-sentence.js";
import { describeAttemptTests, describeExit } from "../tests/describe-test-verdict.js";
import type { CandidateReport } from "../types.js";

/** An attempt's candidates for the PR (collapsed): how many, which were dropped and why, each group's votes and tests, the choice. */
export function renderCandidates(report: CandidateReport, attempt: number): string {
  const votes = report.groups.reduce((sum, g) => sum + g.members.length, 0);
  const lines = [
    `${report.sampled} candidates: ${votes} gave a change, in ${report.groups.length} group${report.groups.length === 1 ? "" : "s"} once normalized` +
      (report.dropped.length ? `; ${report.dropped.length} dropped.` : "."),
    ...report.dropped.map((d) => `- Candidate ${d.number} dropped: ${neutralize(d.reason)}`),
    ...report.groups.map((g, i) => {
      const mark = i === report.chosen ? "**chosen**" : g.out ? `out: ${neutralize(g.out)}` : "not chosen";
      const tests = (g.tests ? ` Tests: ${describeAttemptTests(g.tests)}.` : "") + (g.reproduction ? ` Reproduction: ${describeExit(g.reproduction)}.` : "");
      const head = `- Group ${i + 1} (candidates ${g.members.join(", ")}; ${g.members.length} vote${g.members.length === 1 ? "" : "s"}) — ${mark}.${neutralize(tests)}`;
      return `${head}\n\n${details(`Diff of group ${i + 1}`, fence(g.diff, "diff")).replace(/^/gm, "  ")}`;
    }),
    ...(report.why ? [`${report.chosen === undefined ? "No group chosen" : "Why the chosen group"}: ${endSentence(neutralize(report.why))}`] : []),
  ];
  return details(`Candidates of attempt ${attempt}`, lines.join("\n"));
}
