import { z } from "zod";
import {
  applyEdits,
  describeEncoding,
  findUnencodable,
  makeDiff,
  newSyntaxErrors,
  numberLines,
  splitFile,
  type Edit,
  type FileEncoding,
} from "../../edit/index.js";
import { formatIssue } from "../format-issue.js";
import type { DeveloperRole, FileTask, IssueText, StageContext } from "../types.js";
import type { ChangedFile } from "../tests/open-workbench.js";
import { checkRanges } from "./check-ranges.js";
import { checkSemantics } from "./check-semantics.js";
import { describeCallersOfChange } from "./find-callers.js";
import { openEditableFile } from "../open-editable-file.js";

/** The line ranges developer-locate-lines asks for. */
export const rangesSchema = z.object({
  path: z.string(),
  ranges: z.array(z.object({ start: z.number(), end: z.number(), why: z.string() })),
});

/** The replacement developer-write-code asks for. */
export const codeSchema = z.object({
  old: z.string(),
  new: z.string(),
});

// Lines shown around a chosen range when the Developer writes its replacement: enough for the
// enclosing function and nearby helpers, without resending a long file once per range.
const CONTEXT_LINES = 30;

/** What one Developer attempt needs: the task, the file text it starts from, and what it was told. */
export interface AttemptInput {
  issue: IssueText;
  task: FileTask;
  developer: DeveloperRole;
  before: string;
  /** How the file is written back: the change must keep to characters it can hold. */
  encoding: FileEncoding;
  /** Diffs teammates' earlier tasks produced, or a note that there are none. */
  earlierChanges: string;
  /** The same changes as files: the language server reads them so (a use of what they add is not an error). */
  earlierKept: readonly ChangedFile[];
  /** Feedback on the previous attempt (QA comment, refusal, human review), or a note that there is none. */
  feedback: string;
  /** The file's outline (its definitions and signatures), made once per task: the file does not change between attempts. */
  outline: string;
  /** The reproduction of the issue as the Developer reads it, or a note that there is none. */
  reproduction: string;
  /** Where the definitions the task names are used (see describeCallersForTask), made once per task. */
  callers: string;
  /** On the first of several candidates: how many will be sampled, which the token budget must hold before the first call. */
  alike?: number;
}

/**
 * A change ready for review, with the uses of the definitions it alters for QA and why the language server did not
 * check it (when it did not); or why there is none (fed back to the Developer as is).
 */
export type AttemptResult = { ok: true; after: string; diff: string; callers: string; checkSkipped?: string } | { ok: false; error: string };

/**
 * One Developer attempt (MAGIS Algorithm 3, lines 10–14): choose line ranges from the numbered
 * view, write new code per range anchored by the old text, apply, diff, check syntax, then check with the language
 * server (MarsCode §3.3) and find the callers of what it alters.
 */
export async function makeAttempt(ctx: StageContext, input: AttemptInput): Promise<AttemptResult> {
  const { task, developer, before } = input;
  const numbered = numberLines(before);
  const shared = {
    name: developer.name,
    role: developer.role,
    issue: formatIssue(input.issue),
    path: task.path,
    task: task.description,
    earlier_changes: input.earlierChanges,
    feedback: input.feedback,
    reproduction: input.reproduction,
  };
  const located = await ctx.llm.ask({
    agent: "developer",
    prompt: "developer-locate-lines",
    vars: { ...shared, outline: input.outline, callers: input.callers, numbered },
    schema: rangesSchema,
    ...(input.alike ? { alike: input.alike } : {}),
  });
  const pathProblem = checkOwnPath(ctx, located.value.path, task.path);
  if (pathProblem) return { ok: false, error: pathProblem };
  const { lines } = splitFile(before);
  const checked = checkRanges(located.value.ranges, lines.length);
  if (!checked.ok) return { ok: false, error: checked.error };

  const numberedLines = numbered.split("\n");
  const edits: Edit[] = [];
  for (const { start, end } of checked.ranges) {
    const context = numberedLines.slice(Math.max(0, start - 1 - CONTEXT_LINES), end + CONTEXT_LINES).join("\n");
    const { value } = await ctx.llm.ask({
      agent: "developer",
      prompt: "developer-write-code",
      vars: { ...shared, start, end, old: lines.slice(start - 1, end).join("\n"), context, callers: input.callers },
      schema: codeSchema,
    });
    edits.push({ kind: "range", start, end, old: value.old, new: value.new });
  }

  const applied = applyEdits(before, edits);
  if (!applied.ok) return { ok: false, error: `your edits could not be applied: ${applied.error}` };
  const unencodable = findUnencodable(applied.text, input.encoding);
  if (unencodable) {
    return {
      ok: false,
      error:
        `your change cannot be written to \`${task.path}\`: after it, ${unencodable}, and the file is ${describeEncoding(input.encoding)}, ` +
        `which has no such character; write it with characters the file can hold (an ASCII spelling, or an escape sequence inside a string)`,
    };
  }
  const diff = makeDiff(task.path, before, applied.text);
  if (diff === "") {
    return { ok: false, error: `your edits leave \`${task.path}\` unchanged (the new code equals the old); change the code so that the task is done` };
  }
  const errors = await newSyntaxErrors(task.path, before, applied.text);
  if (errors.length > 0) {
    const list = errors.map((e) => `line ${e.line}, column ${e.column}: ${e.message}`).join("; ");
    return { ok: false, error: `your change adds syntax errors that \`${task.path}\` did not have (${list}); fix them` };
  }
  const semantic = await checkSemantics(ctx, { path: task.path, before, after: applied.text, alongside: input.earlierKept });
  if (semantic.refusal) return { ok: false, error: semantic.refusal };
  const callers = await describeCallersOfChange(ctx, task.path, before, applied.text);
  return { ok: true, after: applied.text, diff, callers, ...(semantic.skipped ? { checkSkipped: semantic.skipped } : {}) };
}

/** Why the path the Developer named is not its task's file, or null when it is. */
function checkOwnPath(ctx: StageContext, named: string, own: string): string | null {
  const opened = openEditableFile(ctx, named);
  if (!opened.ok) return `${opened.error}. Your task is on \`${own}\``;
  if (opened.path !== own) return `'${opened.path}' is not your file: your task is on \`${own}\` only, another file belongs to another task or to none`;
  return null;
}
