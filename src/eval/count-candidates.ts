import type { ResolveResult } from "../pipeline/types.js";
import type { EvalResult } from "./types.js";

/** An instance's candidates as eval records them: sampled, distinct groups, and each choice's rank by votes; nothing when none were sampled. */
export function countCandidates(resolved: ResolveResult): Pick<EvalResult, "candidates"> {
  const reports = resolved.outcomes.flatMap((o) => o.attempts.flatMap((a) => (a.candidates ? [a.candidates] : [])));
  if (reports.length === 0) return {};
  const chosen_ranks = reports.flatMap((report) => {
    if (report.chosen === undefined) return [];
    const votes = report.groups[report.chosen]!.members.length;
    return [1 + report.groups.filter((g) => g.members.length > votes).length];
  });
  return {
    candidates: {
      sampled: reports.reduce((sum, r) => sum + r.sampled, 0),
      groups: reports.reduce((sum, r) => sum + r.groups.length, 0),
      chosen_ranks,
    },
  };
}
