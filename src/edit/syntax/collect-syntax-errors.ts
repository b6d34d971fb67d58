import type { Node } from "web-tree-sitter";

/** One syntax error: where (1-based), what, and a key that names it without its position. */
export interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
  /** Kind, node type, parent type and text: the same error keeps its key when lines above it shift. */
  key: string;
}

/** Every ERROR and MISSING node of a parse tree, outermost first; subtrees without errors are skipped. */
export function collectSyntaxErrors(root: Node): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const visit = (node: Node): void => {
    if (node.isMissing) {
      problems.push(problem(node, `missing \`${node.type}\``, "missing"));
      return;
    }
    if (node.isError) {
      const snippet = node.text.split("\n")[0]!.trim().replace(/\s+/g, " ").slice(0, 40);
      problems.push(problem(node, snippet ? `unexpected \`${snippet}\`` : "unexpected text", "error"));
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return problems;
}

function problem(node: Node, what: string, kind: string): SyntaxProblem {
  const context = node.parent ? ` in ${node.parent.type.replace(/_/g, " ")}` : "";
  return {
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    message: `syntax error: ${what}${context}`,
    key: `${kind}|${node.type}|${node.parent?.type ?? ""}|${what}`,
  };
}
