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
import type { DeveloperRole, FileTask, ShownIssue, StageContext } from "../types.js";
import type { ChangedFile } from "../tests/open-workbench.js";
import { checkRanges, type LineRange } from "./check-ranges.js";
import { checkSemantics } from "./check-semantics.js";
import { describeCallersOfChange } from "./find-callers.js";
import { openEditableFile } from "../open-editable-file.js";
import { editBlockAnswer } from "../../llm/read-edit-block.js";

/** The line ranges developer-locate-lines asks for, each with its reason first. */
export const rangesSchema = z.object({
  path: z.string(),
  ranges: z.array(z.object({ why: z.string(), start: z.number(), end: z.number() })),
});

// Lines shown around a chosen range when the Developer writes its replacement: enough for the
// enclosing function and nearby helpers, without resending a long file once per range.
const CONTEXT_LINES = 30;

/** What one Developer attempt needs: the task, the file text it starts from, and what it was told. */
export interface AttemptInput {
  issue: ShownIssue;
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
}

/**
 * A change ready for review, with the uses of the definitions it alters for QA and why the language server did not
 * check it (when it did not); or why there is none (fed back to the Developer as is).
 */
export type AttemptResult = { ok: true; after: string; diff: string; callers: string; checkSkipped?: string } | { ok: false; error: string };

/**
 * `count` Developer attempts at one task, as candidates (MAGIS Algorithm 3, lines 10–14): choose line ranges from the
 * numbered view, write new code per range anchored by the old text (a SEARCH/REPLACE block), apply, diff, check syntax, then check with the
 * language server (MarsCode §3.3) and find the callers of what it alters. The ranges are asked once for all the
 * candidates (`samples`: one request where the server honours `n`), and each range's code once for the candidates that
 * chose the same ranges; with a count of 1 the requests are those of a single attempt.
 */
export async function makeAttempts(ctx: StageContext, input: AttemptInput, count: number): Promise<AttemptResult[]> {
  const { task, developer, before } = input;
  const numbered = numberLines(before);
  const shared = {
    name: developer.name,
    role: developer.role,
    issue: input.issue.shown,
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
    // The budget must hold every candidate's request before the first is sent.
    ...(count > 1 ? { samples: count, alike: count } : {}),
  });
  const { lines } = splitFile(before);
  const chosen = (located.sampled?.values ?? [located.value]).map((answer) => {
    const pathProblem = checkOwnPath(ctx, answer.path, task.path);
    return pathProblem ? ({ ok: false, error: pathProblem } as const) : checkRanges(answer.ranges, lines.length);
  });

  // Candidates that chose the same ranges share each range's request, one answer each.
  const numberedLines = numbered.split("\n");
  const edits = chosen.map((): Edit[] => []);
  const byRanges = new Map<string, { ranges: LineRange[]; members: number[] }>();
  for (const [i, c] of chosen.entries()) {
    if (!c.ok) continue;
    const key = c.ranges.map((r) => `${r.start}-${r.end}`).join(",");
    const same = byRanges.get(key);
    if (same) same.members.push(i);
    else byRanges.set(key, { ranges: c.ranges, members: [i] });
  }
  for (const { ranges, members } of byRanges.values()) {
    for (const { start, end } of ranges) {
      const context = numberedLines.slice(Math.max(0, start - 1 - CONTEXT_LINES), end + CONTEXT_LINES).join("\n");
      const old = lines.slice(start - 1, end).join("\n");
      const written = await ctx.llm.ask({
        agent: "developer",
        prompt: "developer-write-code",
        vars: { ...shared, start, end, old, context, callers: input.callers },
        text: editBlockAnswer(old),
        ...(members.length > 1 ? { samples: members.length, alike: members.length } : {}),
      });
      const answers = written.sampled?.values ?? [written.value];
      for (const [j, member] of members.entries()) edits[member]!.push({ kind: "range", start, end, old: answers[j]!.old, new: answers[j]!.new });
    }
  }
  // Candidates that wrote the same edits are applied and checked once: the language server's check may take seconds.
  const finished = new Map<string, AttemptResult>();
  const results: AttemptResult[] = [];
  for (const [i, c] of chosen.entries()) {
    if (!c.ok) {
      results.push({ ok: false, error: c.error });
      continue;
    }
    const key = JSON.stringify(edits[i]);
    const result = finished.get(key) ?? (await finishAttempt(ctx, input, edits[i]!));
    finished.set(key, result);
    results.push(result);
  }
  return results;
}

/** One candidate's edits applied to the file, diffed and checked (encoding, syntax, the language server), with the callers of what it alters. */
async function finishAttempt(ctx: StageContext, input: AttemptInput, edits: Edit[]): Promise<AttemptResult> {
  const { task, before } = input;
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
