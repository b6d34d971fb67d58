import { encodePatch } from "../../edit/index.js";
import type { Plan, ResolveResult, TaskOutcome } from "../types.js";

/** The repository-level change (MAGIS Algorithm 3, line 22): the kept file diffs in plan order, and the outcomes in that order. */
export function mergeChanges(plan: Plan, outcomes: TaskOutcome[]): Pick<ResolveResult, "patch" | "changes" | "outcomes"> {
  const ordered = plan.steps.flat().flatMap((path) => outcomes.filter((o) => o.path === path));
  const kept = ordered.filter((o) => o.kept && o.diff !== "");
  return {
    patch: Buffer.concat(kept.map((o) => encodePatch(o.path, o.before, o.after, o.encoding))),
    changes: kept.map((o) => ({ path: o.path, before: o.before, after: o.after, encoding: o.encoding })),
    outcomes: ordered,
  };
}
