import { z } from "zod";
import type { DeveloperRole, FileTask, ShownIssue, StageContext } from "../types.js";
import { mapBounded } from "../../lib/map-bounded.js";

/** The answer its prompt asks for (the prompt's example is checked against it). */
export const answerSchema = z.object({
  name: z.string().min(1),
  role: z.string().min(1),
});

/** The Manager recruits one Developer per task (MAGIS Algorithm 2, line 7); names are made unique so the transcript can tell speakers apart. */
export async function designDevelopers(ctx: StageContext, issue: ShownIssue, tasks: FileTask[]): Promise<DeveloperRole[]> {
  const designed = await mapBounded(tasks, ctx.config.concurrency, async (task) => {
    const { value } = await ctx.llm.ask({
      agent: "manager",
      prompt: "manager-design-developer",
      vars: { issue: issue.shown, path: task.path, task: task.description },
      schema: answerSchema,
    });
    return { name: value.name.trim(), path: task.path, role: value.role.trim() };
  });
  return uniqueNames(designed);
}

/** Renames repeated Developer names ("Alex", "Alex (2)") and keeps "Manager" for the Manager. */
export function uniqueNames(developers: DeveloperRole[]): DeveloperRole[] {
  const seen = new Map<string, number>([["manager", 1]]);
  return developers.map((dev) => {
    const base = dev.name || "Developer";
    const count = (seen.get(base.toLowerCase()) ?? 0) + 1;
    seen.set(base.toLowerCase(), count);
    return count === 1 ? { ...dev, name: base } : { ...dev, name: `${base} (${count})` };
  });
}
