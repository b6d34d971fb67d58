import type { FileFeedback, FileTask } from "../types.js";
import type { DeclinedFile, ReviewComment, Triage } from "./types.js";

/** The Manager's answer to the triage prompt, before it is checked against the review. */
export interface TriageAnswer {
  tasks: { path: string; description: string; general_feedback: boolean }[];
  declined: { path: string; reason: string }[];
}

/** What the checks need to know about the repository: whether a path may be edited (and its normal form). */
export type CheckPath = (path: string) => { ok: true; path: string } | { ok: false; error: string };

const DEFAULT_TASK = "Do what the reviewer's comments on this file ask, and keep the rest of the pull request's change in this file as it is.";

/**
 * Turns the Manager's answer into the revision's tasks (pure but for `checkPath`): a changed file with inline comments
 * gets a task unless the Manager declined it with a reason (its comments ask for no change: a question, praise; the
 * reason answers them); other files only when the Manager asked; files that cannot be edited and commented files the
 * Manager did not take up are declined with a reason. Each task's feedback is its inline
 * comments, plus the general feedback where the Manager applied it (or where the task has no comment of its own).
 */
export function settleTriage(
  answer: TriageAnswer,
  input: { changedFiles: string[]; comments: ReviewComment[]; general: string[] },
  checkPath: CheckPath,
): Triage {
  const changed = new Set(input.changedFiles);
  const commented = unique(input.comments.map((c) => c.path));
  const declined: DeclinedFile[] = [];
  const chosen = new Map<string, { description: string; general: boolean }>();

  for (const task of answer.tasks) {
    const checked = checkPath(task.path);
    if (!checked.ok) {
      declined.push({ path: task.path, reason: `it cannot be changed: ${checked.error}` });
      continue;
    }
    if (chosen.has(checked.path)) continue;
    chosen.set(checked.path, { description: task.description.trim() || DEFAULT_TASK, general: task.general_feedback });
  }
  // A comment on a file the pull request changed is about the bot's own work: it gets its task even if the Manager
  // forgot it; only an explicit decline, whose reason is the answer to the comment, leaves it out.
  for (const path of commented) {
    const answered = answer.declined.some((d) => d.path === path && d.reason.trim() !== "");
    if (changed.has(path) && !chosen.has(path) && !answered) chosen.set(path, { description: DEFAULT_TASK, general: false });
  }
  for (const path of commented) {
    if (chosen.has(path) || declined.some((d) => d.path === path)) continue;
    const said = answer.declined.find((d) => d.path === path);
    declined.push({ path, reason: said?.reason.trim() || "the Manager did not take this comment up as a task for this revision" });
  }

  const tasks: FileTask[] = [...chosen].map(([path, t]) => ({ path, description: t.description }));
  const feedback: FileFeedback[] = tasks.map((task) => {
    const own = input.comments.filter((c) => c.path === task.path);
    const general = chosen.get(task.path)!.general || own.length === 0 ? input.general : [];
    return {
      path: task.path,
      comments: [...general.map((body) => ({ body })), ...own.map((c) => ({ line: c.line, startLine: c.startLine, body: c.body, diffHunk: c.diffHunk }))],
    };
  });
  return { tasks, feedback: feedback.filter((f) => f.comments.length > 0), declined };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
