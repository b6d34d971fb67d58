import pLimit from "p-limit";
import { z } from "zod";
import type { DeveloperRole, FileTask, IssueText, MeetingTurn, StageContext } from "../types.js";
import { formatIssue } from "./format-issue.js";
import { formatTranscript } from "./format-team.js";

const answerSchema = z.object({ role: z.string().min(1) });

/** Each Developer rewrites its own role from the meeting transcript (MAGIS Algorithm 2, line 11). */
export async function refineRoles(
  ctx: StageContext,
  issue: IssueText,
  tasks: FileTask[],
  developers: DeveloperRole[],
  transcript: MeetingTurn[],
): Promise<DeveloperRole[]> {
  const limit = pLimit(ctx.config.concurrency);
  const shared = { issue: formatIssue(issue), transcript: formatTranscript(transcript) };
  return Promise.all(
    developers.map((dev) =>
      limit(async () => {
        const { value } = await ctx.llm.ask({
          agent: "developer",
          prompt: "developer-refine-role",
          vars: {
            ...shared,
            name: dev.name,
            role: dev.role,
            path: dev.path,
            task: tasks.find((t) => t.path === dev.path)?.description ?? "",
          },
          schema: answerSchema,
        });
        return { ...dev, role: value.role.trim() };
      }),
    ),
  );
}
