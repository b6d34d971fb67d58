import { z } from "zod";
import { mapBounded } from "../../lib/map-bounded.js";
import type { ShownIssue, StageContext } from "../types.js";

/** Most files judged in one custodian-judge-relevance call: the issue is sent once for all of them. */
export const JUDGED_AT_ONCE = 10;

/** Most judging calls at the same time (a top_k over JUDGED_AT_ONCE makes several). */
const BATCHES_AT_ONCE = 4;

/** One file's verdict: its path as given, the reason first, then the decision. */
const verdictSchema = z.object({ path: z.string(), reason: z.string(), relevant: z.boolean() });

/** The verdicts custodian-judge-relevance asks for, one per file shown. */
export const relevanceSchema = z.object({ files: z.array(verdictSchema) });

/** A file to judge: its path and its summary. */
export interface JudgedFile {
  path: string;
  summary: string;
}

/** A file's verdict: relevant or not, with a one-line reason. */
export interface Verdict {
  relevant: boolean;
  reason: string;
}

/**
 * The answer schema for these paths: every path given exactly once, none other, so that a verdict left out or given for
 * a file not shown goes back to the model with its name.
 */
export function verdictsFor(paths: string[]): z.ZodType<z.infer<typeof relevanceSchema>> {
  return relevanceSchema.superRefine((answer, check) => {
    const asked = new Set(paths);
    const seen = new Set<string>();
    for (const verdict of answer.files) {
      if (!asked.has(verdict.path))
        check.addIssue({ code: "custom", message: `"${verdict.path}" is not one of the files shown; give each verdict the path as shown` });
      else if (seen.has(verdict.path)) check.addIssue({ code: "custom", message: `"${verdict.path}" has two verdicts; give one for each file` });
      seen.add(verdict.path);
    }
    const missing = paths.filter((path) => !seen.has(path));
    if (missing.length > 0)
      check.addIssue({ code: "custom", message: `no verdict for ${missing.map((path) => `"${path}"`).join(", ")}; give one for each file shown` });
  });
}

/** The files as the prompt shows them: each path in a heading, its summary below (a summary's own headings indented, so no line of it reads as one). */
export function showFiles(files: JudgedFile[]): string {
  return files.map((file) => `### \`${file.path}\`\n\n${file.summary.replace(/^#/gm, " #")}`).join("\n\n");
}

/** The paths {@link showFiles} shows, in order (what a reader of the prompt, the oracle, takes from it). */
export function shownPaths(shown: string): string[] {
  return [...shown.matchAll(/^### `(.+)`$/gm)].map((match) => match[1]!);
}

/**
 * Asks the Custodian which of these files, as summarized, are relevant to the issue (MAGIS Algorithm 1, line 20), with a
 * one-line reason each, in one call per {@link JUDGED_AT_ONCE} files; the verdicts come back in the files' order.
 */
export async function judgeRelevance(ctx: StageContext, issue: ShownIssue, files: JudgedFile[]): Promise<Verdict[]> {
  const batches: JudgedFile[][] = [];
  for (let at = 0; at < files.length; at += JUDGED_AT_ONCE) batches.push(files.slice(at, at + JUDGED_AT_ONCE));
  return (await mapBounded(batches, BATCHES_AT_ONCE, (batch) => judgeBatch(ctx, issue, batch))).flat();
}

/** One call's verdicts, in the order of its files. */
async function judgeBatch(ctx: StageContext, issue: ShownIssue, files: JudgedFile[]): Promise<Verdict[]> {
  const { value } = await ctx.llm.ask({
    agent: "custodian",
    prompt: "custodian-judge-relevance",
    vars: { issue: issue.shown, files: showFiles(files) },
    schema: verdictsFor(files.map((file) => file.path)),
  });
  const byPath = new Map(value.files.map((verdict) => [verdict.path, verdict]));
  return files.map((file) => {
    const { relevant, reason } = byPath.get(file.path)!;
    const said = reason.replace(/\s+/g, " ").trim();
    return { relevant, reason: said || (relevant ? "judged relevant" : "judged not relevant") };
  });
}
