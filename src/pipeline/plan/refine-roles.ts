import { z } from "zod";
import type { DeveloperRole, FileTask, MeetingTurn, ShownIssue, StageContext } from "../types.js";
import { mapBounded } from "../../lib/map-bounded.js";
import { developerVars, formatTranscript } from "./format-team.js";

/** The answer its prompt asks for (the prompt's example is checked against it). */
export const answerSchema = z.object({ role: z.string().min(1) });

/** What the Developers rewrite their roles from, besides the issue: their tasks, their roles so far, and the kickoff meeting. */
export interface RolesToRefine {
  tasks: FileTask[];
  developers: DeveloperRole[];
  /** The kickoff meeting's turns. */
  transcript: MeetingTurn[];
}

/** Each Developer rewrites its own role from the meeting transcript (MAGIS Algorithm 2, line 11). */
export async function refineRoles(ctx: StageContext, issue: ShownIssue, { tasks, developers, transcript }: RolesToRefine): Promise<DeveloperRole[]> {
  const shared = { issue: issue.shown, transcript: formatTranscript(transcript) };
  return mapBounded(developers, ctx.config.concurrency, async (dev) => {
    const { value } = await ctx.llm.ask({
      agent: "developer",
      prompt: "developer-refine-role",
      vars: { ...shared, ...developerVars(dev, tasks) },
      schema: answerSchema,
    });
    return { ...dev, role: value.role.trim() };
  });
}
