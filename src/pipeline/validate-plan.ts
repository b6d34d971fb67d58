/** A plan checked against the tasks: ordered steps using every task path exactly once, or every problem found. */
export type PlanCheck = { ok: true; steps: string[][] } | { ok: false; problems: string[] };

/** Checks a proposed plan: known tasks only, each exactly once; empty steps are dropped, paths normalized. */
export function validatePlan(proposed: string[][], taskPaths: string[]): PlanCheck {
  const known = new Set(taskPaths);
  const firstStep = new Map<string, number>();
  const problems: string[] = [];
  const steps: string[][] = [];
  proposed.forEach((step, index) => {
    const kept: string[] = [];
    for (const raw of step) {
      const path = normalize(raw);
      if (!known.has(path)) {
        problems.push(`step ${index + 1} names "${raw}", which is not a task`);
      } else if (firstStep.has(path)) {
        problems.push(`"${path}" appears more than once (steps ${firstStep.get(path)} and ${index + 1})`);
      } else {
        firstStep.set(path, index + 1);
        kept.push(path);
      }
    }
    if (kept.length > 0) steps.push(kept);
  });
  for (const path of taskPaths) if (!firstStep.has(path)) problems.push(`"${path}" is missing`);
  return problems.length === 0 ? { ok: true, steps } : { ok: false, problems };
}

function normalize(path: string): string {
  return path.trim().replace(/^`|`$/g, "").replace(/^\.\//, "");
}
