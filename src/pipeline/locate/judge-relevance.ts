import { z } from "zod";
import type { ShownIssue, StageContext } from "../types.js";

/** The verdict custodian-judge-relevance asks for. */
export const relevanceSchema = z.object({ relevant: z.boolean(), reason: z.string() });

/** Asks the Custodian whether a file, as summarized, is relevant to the issue (MAGIS Algorithm 1, line 20), with a one-line reason. */
export async function judgeRelevance(ctx: StageContext, issue: ShownIssue, path: string, summary: string): Promise<{ relevant: boolean; reason: string }> {
  const { value } = await ctx.llm.ask({
    agent: "custodian",
    prompt: "custodian-judge-relevance",
    vars: { issue: issue.shown, path, summary },
    schema: relevanceSchema,
  });
  const reason = value.reason.replace(/\s+/g, " ").trim() || (value.relevant ? "judged relevant" : "judged not relevant");
  return { relevant: value.relevant, reason };
}
