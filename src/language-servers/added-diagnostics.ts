import type { Diagnostic } from "vscode-languageserver-protocol";

/** An error a language server reports on the new text of a file and not on its old text. */
export interface AddedProblem {
  /** 1-based, in the new text. */
  line: number;
  column: number;
  /** The server's rule (`reportUndefinedVariable`, `2304`), or `syntax` for an error without one. */
  rule: string;
  message: string;
}

/** The rule a diagnostic comes from, as written in `diagnostics.refuse_rules`. */
export function ruleOf(diagnostic: Diagnostic): string {
  return diagnostic.code === undefined || diagnostic.code === null || diagnostic.code === "" ? "syntax" : String(diagnostic.code);
}

const ERROR = 1;

/**
 * The error-level diagnostics of `after` that `before` did not have, matched by rule and message rather than by line
 * (lines shift with the change): an error already in the file is never blamed on the change.
 */
export function addedDiagnostics(before: readonly Diagnostic[], after: readonly Diagnostic[]): AddedProblem[] {
  const keyOf = (d: Diagnostic) => `${ruleOf(d)}\u0000${d.message}`;
  const known = new Map<string, number>();
  for (const d of before) if (d.severity === ERROR) known.set(keyOf(d), (known.get(keyOf(d)) ?? 0) + 1);
  const added: AddedProblem[] = [];
  for (const d of after) {
    if (d.severity !== ERROR) continue;
    const left = known.get(keyOf(d)) ?? 0;
    if (left > 0) {
      known.set(keyOf(d), left - 1);
      continue;
    }
    added.push({ line: d.range.start.line + 1, column: d.range.start.character + 1, rule: ruleOf(d), message: d.message });
  }
  return added;
}
