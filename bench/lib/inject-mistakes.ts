// The mistakes bench:diagnostics injects into a real Python change, each the kind the language-server check must catch:
// an added line's name renamed to one that is defined nowhere, a call given one argument too many, and an import removed
// while the file still uses its name. Each is found with tree-sitter on the changed text, deterministically (the first
// place that fits), or is absent when the change has no such place.
import type { Node } from "web-tree-sitter";
import { structuredPatch } from "diff";
import { parseText } from "../../src/edit/syntax/load-parser.js";
import { parseDefinitions } from "../../src/edit/syntax/parse-definitions.js";

export type MistakeKind = "undefined-name" | "extra-argument" | "removed-import";

/** One injected mistake: the text with it, and where it was put. */
export interface Mistake {
  kind: MistakeKind;
  text: string;
  where: string;
}

/** The 1-based lines of `after` that the change from `before` added or rewrote. */
export function addedLines(before: string, after: string): Set<number> {
  const added = new Set<number>();
  for (const hunk of structuredPatch("a", "b", before, after, "", "", { context: 0 }).hunks) {
    let line = hunk.newStart;
    for (const text of hunk.lines) {
      if (text.startsWith("+")) added.add(line++);
      else if (!text.startsWith("-")) line++;
    }
  }
  return added;
}

// Where an identifier is read (a use of a name), not bound or named as an attribute or keyword.
const USE_PARENTS = new Set([
  "call",
  "argument_list",
  "binary_operator",
  "comparison_operator",
  "boolean_operator",
  "not_operator",
  "unary_operator",
  "return_statement",
  "subscript",
  "parenthesized_expression",
  "list",
  "tuple",
  "set",
  "if_statement",
  "while_statement",
  "conditional_expression",
  "assert_statement",
  "raise_statement",
  "pair",
]);

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of node.namedChildren) if (child) walk(child, visit);
}

function isUse(node: Node): boolean {
  const parent = node.parent;
  if (!parent || node.type !== "identifier" || ["self", "cls"].includes(node.text)) return false;
  if (parent.type === "attribute") return parent.childForFieldName("object")?.id === node.id;
  if (parent.type === "keyword_argument") return parent.childForFieldName("value")?.id === node.id;
  if (parent.type === "assignment" || parent.type === "augmented_assignment") return parent.childForFieldName("right")?.id === node.id;
  return USE_PARENTS.has(parent.type);
}

function replaceAt(text: string, start: number, end: number, by: string): string {
  return text.slice(0, start) + by + text.slice(end);
}

/** The three mistakes of one change to a Python file, those that have a place in it. */
export async function injectMistakes(path: string, before: string, after: string): Promise<Mistake[]> {
  const tree = await parseText("python", after);
  if (!tree) return [];
  const added = addedLines(before, after);
  const onAdded = (node: Node) => added.has(node.startPosition.row + 1);
  const mistakes: Mistake[] = [];
  try {
    const nodes: Node[] = [];
    walk(tree.rootNode, (node) => nodes.push(node));
    // Positions are in UTF-16 units when the tree is given a JavaScript string: index the string with them.
    const offset = (node: Node) => node.startIndex;

    const use = nodes.find((node) => onAdded(node) && isUse(node));
    if (use) {
      mistakes.push({
        kind: "undefined-name",
        text: replaceAt(after, offset(use), use.endIndex, `${use.text}_magis_undefined`),
        where: `line ${use.startPosition.row + 1}: ${use.text}`,
      });
    }

    const fixed = new Set(
      ((await parseDefinitions(after, path)) ?? [])
        .filter((d) => (d.kind === "function" || d.kind === "method") && !d.signature.includes("*"))
        .map((d) => d.name),
    );
    const calls = nodes.filter((node) => {
      if (node.type !== "call" || !onAdded(node)) return false;
      const args = node.childForFieldName("arguments");
      return args?.type === "argument_list" && !args.namedChildren.some((a) => a && /splat/.test(a.type));
    });
    const calleeName = (call: Node) => {
      const callee = call.childForFieldName("function");
      return callee?.type === "attribute" ? callee.childForFieldName("attribute")?.text : callee?.text;
    };
    // A call whose callee cannot take one more argument: a function the file defines with a fixed signature, else a
    // plain function name (a builtin, an import) rather than a class or an exception, whose constructors often take *args.
    const plain = (c: Node) => c.childForFieldName("function")?.type === "identifier" && /^[a-z_]/.test(calleeName(c) ?? "");
    const call = calls.find((c) => fixed.has(calleeName(c) ?? "")) ?? calls.find(plain);
    if (call) {
      const args = call.childForFieldName("arguments")!;
      // The extra argument goes after the last positional one: after a keyword argument it would be a syntax error.
      const positional = args.namedChildren.filter((a): a is Node => !!a && a.type !== "keyword_argument" && a.type !== "comment");
      const last = positional.at(-1);
      const at = last ? last.endIndex : args.startIndex + 1;
      const rest = args.namedChildren.some((a) => a?.type === "keyword_argument");
      mistakes.push({
        kind: "extra-argument",
        text: replaceAt(after, at, at, last ? ", None" : rest ? "None, " : "None"),
        where: `line ${call.startPosition.row + 1}: ${calleeName(call)}(…)${fixed.has(calleeName(call) ?? "") ? " (defined in the file)" : ""}`,
      });
    }

    // Top-level imports binding exactly one name, and the names the file uses.
    const imports = tree.rootNode.namedChildren.filter(
      (n): n is Node => !!n && (n.type === "import_statement" || n.type === "import_from_statement") && n.startPosition.row === n.endPosition.row,
    );
    const boundName = (statement: Node): string | null => {
      const names = statement.childrenForFieldName("name").filter((n): n is Node => !!n);
      if (names.length !== 1) return null;
      const only = names[0]!;
      if (only.type === "aliased_import") return only.childForFieldName("alias")?.text ?? null;
      return statement.type === "import_statement" ? only.text.split(".")[0]! : only.text;
    };
    const uses = nodes.filter((n) => isUse(n));
    const usedOnAdded = (name: string) => uses.some((n) => n.text === name && onAdded(n));
    const usedAnywhere = (name: string) => uses.some((n) => n.text === name);
    const removable = imports.map((statement) => ({ statement, name: boundName(statement) })).filter((i): i is { statement: Node; name: string } => !!i.name);
    const chosen = removable.find((i) => usedOnAdded(i.name)) ?? removable.find((i) => usedAnywhere(i.name));
    if (chosen) {
      const lineStart = after.lastIndexOf("\n", chosen.statement.startIndex - 1) + 1;
      const lineEnd = after.indexOf("\n", chosen.statement.endIndex);
      mistakes.push({
        kind: "removed-import",
        text: replaceAt(after, lineStart, lineEnd === -1 ? after.length : lineEnd + 1, ""),
        where: `line ${chosen.statement.startPosition.row + 1}: ${chosen.statement.text}${usedOnAdded(chosen.name) ? " (used on an added line)" : ""}`,
      });
    }
  } finally {
    tree.delete();
  }
  return mistakes;
}
