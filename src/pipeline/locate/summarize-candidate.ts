import { createPatch } from "diff";
import { z } from "zod";
import type { MemoryStore } from "../../store/store.js";
import type { StageContext } from "../types.js";
import { extractDefinitions } from "./extract-definitions.js";
import { gitBlobId } from "../../git/git-object-id.js";
import type { SourceFile } from "./list-candidates.js";

/** Where a summary came from: reused as is, the old summary plus a commit message of the diff, or a fresh summary. */
export type SummarySource = "memory" | "diff" | "file";

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

/**
 * The summary of one candidate file (MAGIS Algorithm 1, lines 7-19): the same blob as last time →
 * the stored summary, no model call; an earlier version whose summary is shorter than the file → the
 * old summary plus the model's "commit message" of the diff; otherwise a fresh summary of the file.
 * The result is stored as the file's latest version.
 */
export async function summarizeCandidate(ctx: StageContext, memory: MemoryStore | null, file: SourceFile): Promise<{ summary: string; source: SummarySource }> {
  const blobId = gitBlobId(file.bytes);
  const previous = (await memory?.recall(ctx.repoId, file.path)) ?? null;
  if (previous && previous.blobId === blobId) return { summary: previous.summary, source: "memory" };

  let summary: string;
  let source: SummarySource;
  const diff = previous ? createPatch(file.path, previous.text, file.text, "", "", { context: 3, maxEditLength: MAX_DIFF_EDITS }) : undefined;
  // A diff as long as the file saves nothing over reading the file itself.
  if (previous && diff !== undefined && previous.summary.length < file.text.length && diff.length < file.text.length && diff.length <= MAX_PROMPT_CHARS) {
    const { value } = await ctx.llm.ask({
      agent: "custodian",
      prompt: "custodian-summarize-diff",
      vars: { path: file.path, summary: previous.summary, diff },
      schema: diffMessageSchema,
    });
    summary = `${previous.summary}\nChanged since: ${value.message.trim()}`;
    source = "diff";
  } else {
    const { value } = await ctx.llm.ask({
      agent: "custodian",
      prompt: "custodian-summarize-file",
      vars: { path: file.path, content: clipForPrompt(file.text, file.path) },
      schema: fileSummarySchema,
    });
    summary = value.summary.trim();
    source = "file";
  }
  await memory?.remember(ctx.repoId, file.path, { blobId, summary, text: file.text }, ctx.now());
  return { summary, source };
}
