import { z } from "zod";
import type { IssueText, StageContext } from "../types.js";

const relevanceSchema = z.object({ relevant: z.boolean(), reason: z.string() });

/** Most characters of the issue shown with each judgement; a pasted 1 MB log would otherwise fill the context. */
const MAX_ISSUE_CHARS = 12_000;

/** The issue as the relevance prompt shows it: body and hints, cut to a size every judgement can afford. */
export function issueForPrompt(issue: IssueText): string {
  const parts = [issue.body.trim() || "(no description)"];
  if (issue.hints.length > 0) parts.push("Hints from the discussion:\n" + issue.hints.map((h) => `- ${h.trim()}`).join("\n"));
  const text = parts.join("\n\n");
  return text.length <= MAX_ISSUE_CHARS ? text : `${text.slice(0, MAX_ISSUE_CHARS)}\n… (${text.length - MAX_ISSUE_CHARS} more characters not shown)`;
}

/** Asks the Custodian whether a file, as summarized, is relevant to the issue (MAGIS Algorithm 1, line 20), with a one-line reason. */
export async function judgeRelevance(
  ctx: StageContext,
  issue: IssueText,
  path: string,
  summary: string,
): Promise<{ relevant: boolean; reason: string }> {
  const { value } = await ctx.llm.ask({
    agent: "custodian",
    prompt: "custodian-judge-relevance",
    vars: { title: issue.title.trim() || "(untitled)", body: issueForPrompt(issue), path, summary },
    schema: relevanceSchema,
  });
  const reason = value.reason.replace(/\s+/g, " ").trim() || (value.relevant ? "judged relevant" : "judged not relevant");
  return { relevant: value.relevant, reason };
}
