import { z } from "zod";
import { COMMAND_CHARS, cutText } from "../tests/run-reproduction.js";
import type { LocatedFile, ShownIssue, StageContext, WayChoice } from "../types.js";

/** The most characters of a located file's summary the Manager and the Reproducer read. */
const SUMMARY_CHARS = 1_000;

/** The answer manager-choose-way asks for (the prompt's examples are checked against it); the reasoning comes before the way. */
export const waySchema = z.object({
  reason: z.string(),
  way: z.enum(["dynamic", "static"]),
  reproducer: z.object({ name: z.string(), role: z.string() }),
});

/** The Manager's answer on the way, asked apart or with the first file's task. */
export type WayAnswer = z.infer<typeof waySchema>;

/** What the Manager is shown to choose the way: the located files and where code runs (the issue is the prompt's own). */
export interface WayQuestion {
  files: string;
  commands: string;
}

/** The way chosen and, on the dynamic way, the Reproducer the Manager designed. */
export interface ChosenWay {
  choice: WayChoice;
  reproducer?: { name: string; role: string };
}

/**
 * What the Manager is shown to choose the way, or null when there is no way to choose: commands may not run here, or
 * `reproduce_attempts` is 0 (the way is static without asking).
 */
export function askWay(ctx: StageContext, located: LocatedFile[]): WayQuestion | null {
  const policy = ctx.commands;
  if (!policy?.allowed || ctx.config.reproduce_attempts === 0) return null;
  return { files: describeLocated(located), commands: describeCommands(ctx, policy.sandbox.description) };
}

/**
 * The Manager chooses the way for the issue (MarsCode Agent §3.1) once the files are located: dynamic when a short
 * script can show the issue and the repository's commands may run here, static otherwise. The answer given with the
 * first file's task (`answered`) stands; without one the Manager is asked apart. Where commands may not run or
 * `reproduce_attempts` is 0 the way is static without asking, and the reason says so.
 */
export async function chooseWay(ctx: StageContext, issue: ShownIssue, located: LocatedFile[], answered?: WayAnswer): Promise<ChosenWay> {
  const policy = ctx.commands;
  if (!policy?.allowed) {
    return {
      choice: {
        way: "static",
        reason: `the repository's code may not run here (${policy?.why ?? "the caller did not allow it"}), so nothing can be reproduced`,
      },
    };
  }
  if (ctx.config.reproduce_attempts === 0) return { choice: { way: "static", reason: "reproduce_attempts is 0 in .github/magis.yml" } };
  const value = answered ?? (await askApart(ctx, issue, askWay(ctx, located)!));
  const reason = value.reason.trim() || `The Manager chose the ${value.way} way without a reason.`;
  if (value.way === "static") return { choice: { way: "static", reason } };
  const name = value.reproducer.name.trim() || "Reproducer";
  const role = value.reproducer.role.trim() || "You show the issue with the smallest script that calls the repository's code.";
  return { choice: { way: "dynamic", reason }, reproducer: { name, role } };
}

async function askApart(ctx: StageContext, issue: ShownIssue, question: WayQuestion): Promise<WayAnswer> {
  const { value } = await ctx.llm.ask({ agent: "manager", prompt: "manager-choose-way", vars: { issue: issue.shown, ...question }, schema: waySchema });
  return value;
}

/** The located files the Custodian kept, one line each with its summary. */
export function describeLocated(located: LocatedFile[]): string {
  const kept = located.filter((f) => f.kept !== false);
  if (kept.length === 0) return "(none)";
  return kept.map((f) => `- \`${f.path}\`${f.summary ? `: ${cutText(f.summary.trim(), SUMMARY_CHARS)}` : ""}`).join("\n");
}

function describeCommands(ctx: StageContext, sandbox: string): string {
  const tests = ctx.config.test_command ? `The repository's tests run with \`${cutText(ctx.config.test_command, COMMAND_CHARS)}\`.` : "No test command is set.";
  return `Scripts run ${sandbox}. ${tests}`;
}
