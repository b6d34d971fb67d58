import type { AddedProblem } from "../../language-servers/index.js";
import type { ChangedFile } from "../tests/open-workbench.js";
import type { StageContext } from "../types.js";

/** What the language server says of one attempt: why it is refused, or why it was not checked; neither when it passes. */
export interface SemanticVerdict {
  refusal?: string;
  skipped?: string;
}

/** The errors the config's `diagnostics.refuse_rules` of the language refuse. */
export function refusedProblems(ctx: Pick<StageContext, "config">, language: "python" | "typescript", added: readonly AddedProblem[]): AddedProblem[] {
  const rules = new Set(ctx.config.diagnostics.refuse_rules[language]);
  return added.filter((p) => rules.has(p.rule));
}

/** One attempt's change to a file, and the job's earlier changes to other files, which the check reads as changed. */
export interface SemanticChange {
  path: string;
  before: string;
  after: string;
  alongside: readonly ChangedFile[];
}

/**
 * The semantic check of one attempt (MarsCode §3.3): the file's diagnostics on the new text and, when it has an error
 * of a refusing rule, on the untouched one, with the earlier steps' changes in place; an error the change adds from a
 * rule that means broken code refuses it,
 * with a message for the model, as a new syntax error does. Without language servers, or for a file none checks, it
 * passes unchecked; a server that fails or is too slow makes it pass with a note, never fail the job.
 */
export async function checkSemantics(ctx: StageContext, change: SemanticChange): Promise<SemanticVerdict> {
  if (!ctx.languageServers || !ctx.config.diagnostics.enabled) return {};
  const { path, before, after } = change;
  // Only the refusing rules' errors decide, so the untouched text is checked only when the new one has one of them.
  const check = await ctx.languageServers.check(path, before, after, {
    alongside: change.alongside.map((file) => ({ path: file.path, text: file.after })),
    only: ctx.config.diagnostics.refuse_rules,
  });
  if (!check.checked) return check.why.startsWith("no language server checks") ? {} : { skipped: check.why };
  const refused = refusedProblems(ctx, check.language, check.added);
  if (refused.length === 0) return {};
  const list = refused.map((p) => `line ${p.line}, column ${p.column}: ${p.message} (${p.rule})`).join("; ");
  return { refusal: `your change adds errors that ${check.server} reports and \`${path}\` did not have (${list}); fix them` };
}
