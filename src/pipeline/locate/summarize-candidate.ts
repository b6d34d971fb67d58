import { createPatch } from "diff";
import { z } from "zod";
import type { MemoryStore } from "../../store/store.js";
import type { StageContext } from "../types.js";
import { extractDefinitions } from "./extract-definitions.js";
import { gitBlobId } from "../../git/git-object-id.js";
import type { SourceFile } from "./list-candidates.js";
import { summaryInput } from "./outline-file.js";

/** What a summary is made from, as summaryInput gives it. */
type ShownForSummary = ReturnType<typeof summaryInput>;

/**
 * Where a summary came from: reused as is (the same blob, or a new one whose outline is the same), the old summary plus a
 * commit message of the diff, or a fresh summary.
 */
export type SummarySource = "memory" | "outline" | "diff" | "file";

/** The summary custodian-summarize-file asks for. */
export const fileSummarySchema = z.object({ summary: z.string().min(1) });
/** The commit message custodian-summarize-diff asks for. */
export const diffMessageSchema = z.object({ message: z.string().min(1) });

/** Most characters of a file (or diff) put in one prompt: about 10k tokens, within any current model's context. */
export const MAX_PROMPT_CHARS = 40_000;

// Myers' diff takes time in proportion to the file's lines times the lines that changed, all of it
// holding the event loop: a reformatted 400 KB file took 10 s. Past this many added and removed lines
// (at ~40 characters a line, a diff over the prompt cap anyway) the diff is given up, in under 0.1 s.
const MAX_DIFF_EDITS = MAX_PROMPT_CHARS / 40;

/** A file's text cut to the prompt cap; what is cut is replaced by the names the rest defines. */
export function clipForPrompt(text: string, path: string): string {
  if (text.length <= MAX_PROMPT_CHARS) return text;
  const cut = text.lastIndexOf("\n", MAX_PROMPT_CHARS);
  const head = text.slice(0, cut > 0 ? cut : MAX_PROMPT_CHARS);
  const rest = text.slice(head.length);
  const names = extractDefinitions(rest, path).slice(0, 300);
  return `${head}\n… (${rest.length} more characters not shown${names.length ? `; they define: ${names.join(", ")}` : ""})`;
}

/** How each prompt names what it shows of the file: its text, or its outline. */
const VIEWS = {
  text: "its text",
  outline: "its outline (its header, imports and settings, and each definition with the first line of its docstring; `...` stands for lines left out)",
} as const;

/**
 * The summary of one candidate file (MAGIS Algorithm 1, lines 7-19), made from what {@link summaryInput} shows of it
 * (the text of a short file, else its outline): the same blob as last time, or a new one showing the same → the stored
 * summary, no model call; an earlier version whose summary is shorter than what it shows → the old summary plus the
 * model's "commit message" of the diff of the two; otherwise a fresh summary. The result is stored as the file's latest version.
 */
export async function summarizeCandidate(ctx: StageContext, memory: MemoryStore | null, file: SourceFile): Promise<{ summary: string; source: SummarySource }> {
  const blobId = gitBlobId(file.bytes);
  const previous = (await memory?.recall(ctx.repoId, file.path)) ?? null;
  if (previous && previous.blobId === blobId) return { summary: previous.summary, source: "memory" };

  const shown = summaryInput(file.text, file.path);
  const before = previous ? summaryInput(previous.text, file.path) : null;
  let summary: string;
  let source: SummarySource;
  if (previous && before && before.kind === shown.kind && before.input === shown.input) {
    // Only what the outline leaves out changed (the body of a function): the summary, made from the outline, still holds.
    summary = previous.summary;
    source = "outline";
  } else {
    const diff = changeShown(file.path, before, shown);
    // A diff as long as what it compares saves nothing over reading that itself.
    if (previous && diff !== undefined && previous.summary.length < shown.input.length && diff.length < shown.input.length && diff.length <= MAX_PROMPT_CHARS) {
      const { value } = await ctx.llm.ask({
        agent: "custodian",
        prompt: "custodian-summarize-diff",
        vars: { path: file.path, summary: previous.summary, view: VIEWS[shown.kind], diff },
        schema: diffMessageSchema,
      });
      summary = `${previous.summary}\nChanged since: ${value.message.trim()}`;
      source = "diff";
    } else {
      const { value } = await ctx.llm.ask({
        agent: "custodian",
        prompt: "custodian-summarize-file",
        vars: { path: file.path, view: VIEWS[shown.kind], content: shown.kind === "outline" ? shown.input : clipForPrompt(shown.input, file.path) },
        schema: fileSummarySchema,
      });
      summary = value.summary.trim();
      source = "file";
    }
  }
  await memory?.remember(ctx.repoId, file.path, { blobId, summary, text: file.text }, ctx.now());
  return { summary, source };
}

/** The unified diff from what the earlier version showed to what this one shows, when both show the same kind (text or outline) and it is worth computing. */
function changeShown(path: string, before: ShownForSummary | null, shown: ShownForSummary): string | undefined {
  if (!before || before.kind !== shown.kind) return undefined;
  return createPatch(path, before.input, shown.input, "", "", { context: 3, maxEditLength: MAX_DIFF_EDITS });
}
