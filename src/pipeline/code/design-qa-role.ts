import { z } from "zod";
import type { DeveloperRole, FileTask, ShownIssue, StageContext } from "../types.js";

/** The answer its prompt asks for (the prompt's example is checked against it). */
export const answerSchema = z.object({ role: z.string().min(1) });

/** The Developer describes the QA Engineer who will review its change (MAGIS Algorithm 3, line 5). */
export async function designQaRole(ctx: StageContext, issue: ShownIssue, task: FileTask, developer: DeveloperRole): Promise<string> {
  const { value } = await ctx.llm.ask({
    agent: "developer",
    prompt: "developer-design-qa",
    vars: { name: developer.name, role: developer.role, issue: issue.shown, path: task.path, task: task.description },
    schema: answerSchema,
  });
  return value.role.trim();
}
