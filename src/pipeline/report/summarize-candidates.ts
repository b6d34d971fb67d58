import type { CandidateReport } from "../types.js";

/** An attempt's candidates in a few words, for one line of progress: "3 candidates, 2 groups, the chosen one had 2 votes". */
export function summarizeCandidates(report: CandidateReport): string {
  const groups = `${report.sampled} candidates, ${report.groups.length} group${report.groups.length === 1 ? "" : "s"}`;
  if (report.chosen === undefined) return groups;
  const votes = report.groups[report.chosen]!.members.length;
  return `${groups}, the chosen one had ${votes} vote${votes === 1 ? "" : "s"}`;
}
