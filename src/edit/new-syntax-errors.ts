import { collectSyntaxErrors, type SyntaxProblem } from "./syntax/collect-syntax-errors.js";
import { grammarForPath } from "./syntax/grammar-for-path.js";
import { loadParser, parseText } from "./syntax/load-parser.js";

/** A syntax error an edit introduced, at its place in the edited text (1-based line and column). */
export interface SyntaxErrorReport {
  line: number;
  column: number;
  message: string;
}

/**
 * The syntax errors in `after` that `before` did not have, matched by kind and context rather than by
 * line (lines shift with the edit), so code that was already broken is never blamed on the Developer.
 * Files in languages without a grammar get an empty list: they are not blocked; so do files the grammar's own
 * code fails on (see parseText).
 */
export async function newSyntaxErrors(path: string, before: string, after: string): Promise<SyntaxErrorReport[]> {
  const grammar = grammarForPath(path);
  if (!grammar) return [];
  try {
    await loadParser(grammar);
  } catch (error) {
    throw new Error(
      `The ${grammar} grammar for ${path} could not be loaded from its package (${String(error)}); ` + `reinstall dependencies with \`npm ci\`.`,
      {
        cause: error,
      },
    );
  }
  // null when the grammar itself failed on the text: the file is then not checked, as one without a grammar.
  const errorsOf = async (text: string): Promise<SyntaxProblem[] | null> => {
    const tree = await parseText(grammar, text);
    if (!tree) return null;
    try {
      return collectSyntaxErrors(tree.rootNode);
    } finally {
      tree.delete();
    }
  };
  const was = await errorsOf(before);
  const is = was && (await errorsOf(after));
  if (!was || !is) return [];
  const known = new Map<string, number>();
  for (const { key } of was) known.set(key, (known.get(key) ?? 0) + 1);
  const fresh: SyntaxErrorReport[] = [];
  for (const { key, line, column, message } of is) {
    const left = known.get(key) ?? 0;
    if (left > 0) known.set(key, left - 1);
    else fresh.push({ line, column, message });
  }
  return fresh;
}
