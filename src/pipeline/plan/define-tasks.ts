import { z } from "zod";
import { openEditableFile } from "../open-editable-file.js";
import { mapBounded } from "../../lib/map-bounded.js";
import { protectedPathMatcher } from "../../lib/protected-paths.js";
import type { FileTask, LocatedFile, SetAsideFile, ShownIssue, StageContext } from "../types.js";
import { namesIn, outlineFile } from "../../edit/syntax/outline-file.js";
import { waySchema, type WayAnswer, type WayQuestion } from "../reproduce/choose-way.js";

/** The answer its prompt asks for (the prompt's examples are checked against it); the reasoning comes before the verdict. */
export const answerSchema = z.object({
  description: z.string().min(1),
  needs_change: z.boolean(),
  /** Only when the issue lacks what any reasonable reading needs to act on: what to ask its author, instead of a task. */
  question: z.string().trim().min(1).max(2000).optional(),
});

/** The answer of the first file's task when the Manager also chooses the way there: the task's, then the way's. */
export const taskAndWaySchema = answerSchema.extend({ way: waySchema });

/** The Manager's tasks, the files it set aside, and the questions it would ask instead of guessing (one per file at most). */
export interface DefinedTasks {
  tasks: FileTask[];
  setAside: SetAsideFile[];
  questions: string[];
  /** The way, when it was asked with the first file's task; absent when it was not (or that file could not be opened). */
  way?: WayAnswer;
}

// The Manager judges the file, it does not edit it: a long file's head is enough, and it keeps the
// prompt within reach of small context windows.
const MAX_VIEW_CHARS = 40_000;

/**
 * The Manager's file-level tasks (MAGIS Algorithm 2, line 5): one per kept located file that needs a change, and the
 * kept files it made no task of with why. A protected file is judged too: a change it needs is set aside for a person.
 * With `way`, the Manager chooses the way in the same call as the first kept file's task (one call fewer than asking
 * it apart).
 */
export async function defineTasks(ctx: StageContext, issue: ShownIssue, located: LocatedFile[], way?: WayQuestion | null): Promise<DefinedTasks> {
  const isProtected = protectedPathMatcher(ctx.config.protected_paths);
  const judged = await mapBounded(
    located.filter((file) => file.kept !== false),
    ctx.config.concurrency,
    (file, index) => judgeFile(ctx, issue, file, { isProtected, way: index === 0 ? (way ?? null) : null }),
  );
  const chosen = judged.find((j) => j.way)?.way;
  return {
    tasks: judged.flatMap((j) => ("task" in j ? [j.task] : [])),
    setAside: judged.flatMap((j) => ("setAside" in j ? [j.setAside] : [])),
    questions: judged.flatMap((j) => (j.question ? [j.question] : [])),
    ...(chosen ? { way: chosen } : {}),
  };
}

async function judgeFile(
  ctx: StageContext,
  issue: ShownIssue,
  file: LocatedFile,
  { isProtected, way }: { isProtected: (path: string) => boolean; way: WayQuestion | null },
): Promise<({ task: FileTask } | { setAside: SetAsideFile }) & { question?: string; way?: WayAnswer }> {
  // The Manager may read a protected file to say what a person must change there; only the team may not edit it.
  const opened = openEditableFile({ root: ctx.root, config: { ...ctx.config, protected_paths: [] } }, file.path);
  if (!opened.ok) return { setAside: { path: file.path, kind: "unopenable", description: opened.error } };
  const content =
    opened.text.length > MAX_VIEW_CHARS
      ? `${opened.text.slice(0, MAX_VIEW_CHARS)}\n… (${opened.text.length - MAX_VIEW_CHARS} more characters not shown)`
      : opened.text;
  const vars = {
    issue: issue.shown,
    path: opened.path,
    summary: file.summary ?? "(no summary)",
    outline: await outlineFile(opened.text, opened.path, { names: namesIn(issue.title, issue.body, ...issue.hints) }),
    content,
  };
  if (!way) {
    const { value } = await ctx.llm.ask({ agent: "manager", prompt: "manager-define-task", vars, schema: answerSchema });
    return judgeAnswer(opened.path, value, isProtected);
  }
  const { value } = await ctx.llm.ask({ agent: "manager", prompt: "manager-define-task-and-way", vars: { ...vars, ...way }, schema: taskAndWaySchema });
  return { ...judgeAnswer(opened.path, value, isProtected), way: value.way };
}

/** A file's task from the Manager's answer, or why it was set aside (with the question to ask instead, if any). */
function judgeAnswer(
  path: string,
  value: z.infer<typeof answerSchema>,
  isProtected: (path: string) => boolean,
): ({ task: FileTask } | { setAside: SetAsideFile }) & { question?: string } {
  // A question stands instead of a task: the Manager could not tell what to change, so nothing is asked of the team here.
  if (value.question) return { setAside: { path, kind: "no-change", description: value.description }, question: value.question };
  if (!value.needs_change) return { setAside: { path, kind: "no-change", description: value.description } };
  if (isProtected(path)) return { setAside: { path, kind: "needs-human", description: value.description } };
  return { task: { path, description: value.description } };
}
