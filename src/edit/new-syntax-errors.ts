import { collectSyntaxErrors, type SyntaxProblem } from "./syntax/collect-syntax-errors.js";
import { grammarForPath } from "./syntax/grammar-for-path.js";
import { loadParser } from "./syntax/load-parser.js";

/** A syntax error an edit introduced, at its place in the edited text (1-based line and column). */
export interface SyntaxErrorReport {
  line: number;
  column: number;
  message: string;
}

/**
 * The syntax errors in `after` that `before` did not have, matched by kind and context rather than by
 * line (lines shift with the edit), so code that was already broken is never blamed on the Developer.
 * Files in languages without a grammar get an empty list: they are not blocked.
 */
export async function newSyntaxErrors(path: string, before: string, after: string): Promise<SyntaxErrorReport[]> {
  const grammar = grammarForPath(path);
  if (!grammar) return [];
  let parser;
  try {
    parser = await loadParser(grammar);
  } catch (error) {
    throw new Error(
      `The ${grammar} grammar for ${path} could not be loaded from tree-sitter-wasms (${String(error)}); ` +
        `reinstall dependencies with \`npm ci\`.`,
    );
  }
  const errorsOf = (text: string): SyntaxProblem[] => {
    const tree = parser.parse(text);
    if (!tree) return [];
    try {
      return collectSyntaxErrors(tree.rootNode);
    } finally {
      tree.delete();
    }
  };
  const known = new Map<string, number>();
  for (const { key } of errorsOf(before)) known.set(key, (known.get(key) ?? 0) + 1);
  const fresh: SyntaxErrorReport[] = [];
  for (const { key, line, column, message } of errorsOf(after)) {
    const left = known.get(key) ?? 0;
    if (left > 0) known.set(key, left - 1);
    else fresh.push({ line, column, message });
  }
  return fresh;
}
