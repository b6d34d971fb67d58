import { z } from "zod";
import { openEditableFile } from "../open-editable-file.js";
import { fence } from "../../lib/markdown.js";
import type { ShownIssue, StageContext } from "../types.js";
import { placeOf } from "./place-of.js";
import { settleTriage } from "./settle-triage.js";
import type { PrepareFiles, ReviewComment, RevisionInput, Triage } from "./types.js";

/** The answer its prompt asks for (the prompt's example is checked against it). */
export const answerSchema = z.object({
  tasks: z.array(z.object({ path: z.string(), description: z.string(), general_feedback: z.boolean() })),
  declined: z.array(z.object({ path: z.string(), reason: z.string() })),
});

// The Manager judges the review against the pull request's diff; a very large diff is cut (per file, then in all)
// so small context windows still fit. Files past the total are listed without their patch.
const MAX_PATCH_CHARS = 6_000;
const MAX_TOTAL_PATCH_CHARS = 40_000;

/**
 * The Manager reads the review and decides the file-level tasks of the revision (which files, what to change, whose
 * words go where). The Manager reads patches, not files; the files its tasks name are prepared once it has answered.
 */
export async function triageFeedback(ctx: StageContext, input: RevisionInput & { issue: ShownIssue }, prepare?: PrepareFiles): Promise<Triage> {
  const changed = new Set(input.changedFiles.map((f) => f.path));
  const { value } = await ctx.llm.ask({
    agent: "manager",
    prompt: "manager-triage-feedback",
    vars: {
      issue: input.issue.shown,
      changed_files: formatChangedFiles(input.changedFiles),
      comments: formatComments(input.comments, changed),
      general: input.general.length > 0 ? input.general.map((g) => `- ${g.replace(/\n/g, "\n  ")}`).join("\n") : "(none)",
    },
    schema: answerSchema,
  });
  await prepare?.([...changed, ...input.comments.map((c) => c.path), ...value.tasks.map((t) => t.path)]);
  const checkPath = (path: string) => {
    const opened = openEditableFile(ctx, path);
    return opened.ok ? { ok: true as const, path: opened.path } : opened;
  };
  return settleTriage(value, { changedFiles: [...changed], comments: input.comments, general: input.general }, checkPath);
}

function formatChangedFiles(files: RevisionInput["changedFiles"]): string {
  if (files.length === 0) return "(none)";
  let budget = MAX_TOTAL_PATCH_CHARS;
  return files
    .map((f) => {
      if (!f.patch || budget <= 0)
        return `### \`${f.path}\`\n(patch not shown: ${f.patch ? "the diff is too long to show every file" : "binary or too large"})`;
      const shown = f.patch.length > Math.min(MAX_PATCH_CHARS, budget) ? `${f.patch.slice(0, Math.min(MAX_PATCH_CHARS, budget))}\n… (cut)` : f.patch;
      budget -= shown.length;
      return `### \`${f.path}\`\n${fence(shown, "diff")}`;
    })
    .join("\n\n");
}

function formatComments(comments: ReviewComment[], changed: Set<string>): string {
  if (comments.length === 0) return "(none)";
  const paths = [...new Set(comments.map((c) => c.path))];
  return paths
    .map((path) => {
      const note = changed.has(path) ? "changed by the pull request" : "NOT changed by the pull request";
      const lines = comments.filter((c) => c.path === path).map((c) => `- On ${placeOf(c)}: ${c.body.replace(/\n/g, "\n  ")}`);
      return [`### \`${path}\` (${note})`, ...lines].join("\n");
    })
    .join("\n\n");
}
