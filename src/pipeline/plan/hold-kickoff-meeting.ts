import { z } from "zod";
import type { DeveloperRole, FileTask, MeetingTurn, ShownIssue, StageContext } from "../types.js";
import { developerVars, formatTeam, formatTranscript } from "./format-team.js";

/** A speech at the kick-off meeting, as the three meeting prompts ask for it. */
export const speechSchema = z.object({ speech: z.string().min(1) });

/** The speaker name the Manager has in every transcript. */
export const MANAGER = "Manager";

/**
 * The kick-off meeting as circular speech (MAGIS §3.2.1): the Manager opens, each Developer speaks
 * once in team order having heard every earlier turn, the Manager sums up. Returns the transcript.
 */
export async function holdKickoffMeeting(ctx: StageContext, issue: ShownIssue, tasks: FileTask[], developers: DeveloperRole[]): Promise<MeetingTurn[]> {
  const shared = { issue: issue.shown, team: formatTeam(tasks, developers) };
  const transcript: MeetingTurn[] = [];
  const opening = await ctx.llm.ask({ agent: "manager", prompt: "manager-open-meeting", vars: shared, schema: speechSchema });
  transcript.push({ speaker: MANAGER, text: opening.value.speech });
  // Turns are sequential by design: each Developer must hear everything said before it.
  for (const dev of developers) {
    const { value } = await ctx.llm.ask({
      agent: "developer",
      prompt: "developer-speak",
      vars: { ...shared, ...developerVars(dev, tasks), transcript: formatTranscript(transcript) },
      schema: speechSchema,
    });
    transcript.push({ speaker: dev.name, text: value.speech });
  }
  const closing = await ctx.llm.ask({
    agent: "manager",
    prompt: "manager-close-meeting",
    vars: { ...shared, transcript: formatTranscript(transcript) },
    schema: speechSchema,
  });
  transcript.push({ speaker: MANAGER, text: closing.value.speech });
  return transcript;
}
