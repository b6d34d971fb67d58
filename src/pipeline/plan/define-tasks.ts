import { z } from "zod";
import { openEditableFile } from "../open-editable-file.js";
import { mapBounded } from "../map-bounded.js";
import type { FileTask, IssueText, LocatedFile, StageContext } from "../types.js";
import { formatIssue } from "../format-issue.js";

const answerSchema = z.object({
  needs_change: z.boolean(),
  description: z.string().min(1),
});

// The Manager judges the file, it does not edit it: a long file's head is enough, and it keeps the
// prompt within reach of small context windows.
const MAX_VIEW_CHARS = 40_000;

/**
 * The Manager's file-level tasks (MAGIS Algorithm 2, line 5): one per kept located file that needs
 * a change. Returns the tasks and the located list with the files the Manager dropped marked so.
 */
export async function defineTasks(
  ctx: StageContext,
  issue: IssueText,
  located: LocatedFile[],
): Promise<{ tasks: FileTask[]; located: LocatedFile[] }> {
  const judged = await mapBounded(located, ctx.config.concurrency, (file) =>
    file.kept === false ? Promise.resolve({ file, task: null }) : judgeFile(ctx, issue, file),
  );
  return {
    tasks: judged.flatMap((j) => (j.task ? [j.task] : [])),
    located: judged.map((j) => j.file),
  };
}

async function judgeFile(
  ctx: StageContext,
  issue: IssueText,
  file: LocatedFile,
): Promise<{ file: LocatedFile; task: FileTask | null }> {
  const opened = openEditableFile(ctx, file.path);
  if (!opened.ok) return { file: { ...file, kept: false, reason: `Manager: cannot be changed: ${opened.error}` }, task: null };
  const content =
    opened.text.length > MAX_VIEW_CHARS
      ? `${opened.text.slice(0, MAX_VIEW_CHARS)}\n… (${opened.text.length - MAX_VIEW_CHARS} more characters not shown)`
      : opened.text;
  const { value } = await ctx.llm.ask({
    agent: "manager",
    prompt: "manager-define-task",
    vars: { issue: formatIssue(issue), path: opened.path, summary: file.summary ?? "(no summary)", content },
    schema: answerSchema,
  });
  if (!value.needs_change) {
    return { file: { ...file, kept: false, reason: `Manager: no change needed: ${value.description}` }, task: null };
  }
  return { file: { ...file, kept: true }, task: { path: opened.path, description: value.description } };
}
