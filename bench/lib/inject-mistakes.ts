// The mistakes bench:diagnostics injects into a real Python change, each the kind the language-server check must catch:
// an added line's name renamed to one that is defined nowhere, a call given one argument too many, and an import removed
// while the file still uses its name. Each is found with tree-sitter on the changed text, deterministically (the first
// place that fits), or is absent when the change has no such place.
import type { Node } from "web-tree-sitter";
import { changedLines } from "../../src/edit/changed-lines.js";
import { parseText } from "../../src/edit/syntax/load-parser.js";

export type MistakeKind = "undefined-name" | "extra-argument" | "removed-import";

/** One injected mistake: the text with it, and where it was put. */
export interface Mistake {
  kind: MistakeKind;
  text: string;
  where: string;
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

/** The text of a file of the checkout the change is made in (its path from the root), or null when there is none. */
export type ReadFile = (file: string) => string | null;

/**
 * The three mistakes of one change to a Python file, those that have a place in it. `readModule` gives the files the
 * changed one imports from, where the callees of its calls may be defined.
 */
export async function injectMistakes(path: string, before: string, after: string, readModule: ReadFile = () => null): Promise<Mistake[]> {
  const tree = await parseText("python", after);
  if (!tree) return [];
  const added = changedLines(before, after, "new");
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

    const call = await overfullCall(nodes, onAdded, tree.rootNode, { file: path, readModule });
    if (call) {
      const args = call.node.childForFieldName("arguments")!;
      // The extra argument goes after the last positional one: after a keyword argument it would be a syntax error.
      const positional = positionalArguments(args);
      const last = positional.at(-1);
      const at = last ? last.endIndex : args.startIndex + 1;
      const rest = args.namedChildren.some((a) => a?.type === "keyword_argument");
      mistakes.push({
        kind: "extra-argument",
        text: replaceAt(after, at, at, last ? ", None" : rest ? "None, " : "None"),
        where: `line ${call.node.startPosition.row + 1}: ${call.node.childForFieldName("function")!.text}(…) takes ${call.takes} (${call.from})`,
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

const positionalArguments = (args: Node) => args.namedChildren.filter((a): a is Node => !!a && a.type !== "keyword_argument" && a.type !== "comment");

/**
 * How many positional arguments each function of a module takes at most, by name: methods (bound ones without their
 * self or cls) apart from plain functions. A function whose arity the text does not fix is left out: one taking *args,
 * one wrapped by a decorator (which may change its signature; staticmethod and classmethod do not), one defined twice
 * with different arities.
 */
function aritiesOf(nodes: readonly Node[]): { functions: Map<string, number>; methods: Map<string, number> } {
  const found = { functions: new Map<string, number | null>(), methods: new Map<string, number | null>() };
  for (const node of nodes) {
    if (node.type !== "function_definition") continue;
    const name = node.childForFieldName("name")?.text;
    const decorated = node.parent?.type === "decorated_definition" ? node.parent : null;
    const decorators = (decorated?.namedChildren ?? []).filter((n): n is Node => n?.type === "decorator").map((d) => d.text.slice(1).trim());
    const container = (decorated ?? node).parent;
    const isMethod = container?.type === "block" && container.parent?.type === "class_definition";
    if (!name || decorators.some((d) => d !== "staticmethod" && d !== "classmethod")) continue;
    let count = 0;
    let fixed = true;
    for (const parameter of node.childForFieldName("parameters")?.namedChildren ?? []) {
      if (!parameter) continue;
      if (parameter.type === "keyword_separator") break;
      if (parameter.type === "list_splat_pattern" || parameter.namedChildren.some((c) => c?.type === "list_splat_pattern")) fixed = false;
      else if (["identifier", "typed_parameter", "default_parameter", "typed_default_parameter"].includes(parameter.type)) count++;
    }
    const bound = isMethod && !decorators.includes("staticmethod");
    const arity = fixed ? count - (bound ? 1 : 0) : null;
    const table = isMethod ? found.methods : found.functions;
    table.set(name, table.has(name) && table.get(name) !== arity ? null : arity);
  }
  const known = (table: Map<string, number | null>) => new Map([...table].filter((e): e is [string, number] => e[1] !== null && e[1] >= 0));
  return { functions: known(found.functions), methods: known(found.methods) };
}

/** The file a `from … import` statement in `file` reads: `a.b` → a/b.py or a/b/__init__.py; `.b` beside `file`. */
function moduleFiles(file: string, module: string): string[] {
  const dots = /^\.*/.exec(module)![0].length;
  let base = module.slice(dots).replaceAll(".", "/");
  if (dots > 0) {
    const dir = file.split("/").slice(0, -dots).join("/");
    base = [dir, base].filter(Boolean).join("/");
  }
  return base ? [`${base}.py`, `${base}/__init__.py`] : [];
}

/** The module-level functions a file imports by name from the checkout's modules, with their arities. */
async function importedArities(root: Node, file: string, readModule: ReadFile): Promise<Map<string, { arity: number; from: string }>> {
  const imported = new Map<string, { arity: number; from: string }>();
  for (const statement of root.namedChildren) {
    if (statement?.type !== "import_from_statement") continue;
    const module = statement.childForFieldName("module_name")?.text ?? "";
    let source: { candidate: string; text: string } | undefined;
    for (const candidate of moduleFiles(file, module)) {
      const text = readModule(candidate);
      if (text !== null) {
        source = { candidate, text };
        break;
      }
    }
    if (!source) continue;
    const tree = await parseText("python", source.text);
    if (!tree) continue;
    try {
      const nodes: Node[] = [];
      walk(tree.rootNode, (node) => nodes.push(node));
      const { functions } = aritiesOf(nodes);
      for (const name of statement.childrenForFieldName("name")) {
        if (!name) continue;
        const original = name.type === "aliased_import" ? name.childForFieldName("name")?.text : name.text;
        const local = name.type === "aliased_import" ? name.childForFieldName("alias")?.text : name.text;
        const arity = functions.get(original ?? "");
        if (local && arity !== undefined) imported.set(local, { arity, from: `imported from ${source.candidate}` });
      }
    } finally {
      tree.delete();
    }
  }
  return imported;
}

/**
 * The most positional arguments builtins take whose signature is fixed (Python 3's, as typeshed gives them to Pyright):
 * one more is a TypeError. Builtins that take any number (print, min, max, zip) are not here.
 */
const BUILTIN_ARITIES: Record<string, number> = Object.fromEntries(
  [
    "abs all any ascii bin callable chr hash hex id len oct ord repr reversed sorted vars",
    "delattr divmod enumerate hasattr isinstance issubclass next round sum",
    "getattr setattr",
  ].flatMap((names, i) => names.split(" ").map((name) => [name, i + 1])),
);

/**
 * The first call on an added line (of `nodes`, the whole file's) that one more positional argument makes wrong: its callee is a function whose arity the
 * file (or a module it imports from) fixes — a plain name for a function, `self.` or `cls.` for a method of the file's
 * classes — and the call already fills every positional parameter. Calls of builtins and of what the checkout does not
 * define are left out: many take any number of arguments, and one more is not a mistake there.
 */
async function overfullCall(
  nodes: readonly Node[],
  onAdded: (node: Node) => boolean,
  root: Node,
  from: { file: string; readModule: ReadFile },
): Promise<{ node: Node; takes: string; from: string } | null> {
  const own = aritiesOf(nodes);
  // A builtin's name the file binds itself (a parameter, an assignment, an import) is not the builtin there.
  const shadowed = new Set(
    nodes
      .filter((node) => node.type === "identifier" && !isUse(node) && node.parent?.type !== "attribute" && node.parent?.type !== "keyword_argument")
      .map((node) => node.text),
  );
  const imported = await importedArities(root, from.file, from.readModule);
  for (const node of nodes) {
    const args = node.type === "call" && onAdded(node) ? node.childForFieldName("arguments") : null;
    if (args?.type !== "argument_list" || args.namedChildren.some((a) => a && /splat/.test(a.type))) continue;
    const callee = node.childForFieldName("function")!;
    let found: { arity: number; from: string } | undefined;
    if (callee.type === "identifier") {
      const arity = own.functions.get(callee.text);
      found = arity !== undefined ? { arity, from: "defined in the file" } : imported.get(callee.text);
      const builtin = BUILTIN_ARITIES[callee.text];
      if (!found && builtin !== undefined && !shadowed.has(callee.text)) found = { arity: builtin, from: "a builtin" };
    } else if (callee.type === "attribute" && ["self", "cls"].includes(callee.childForFieldName("object")?.text ?? "")) {
      const arity = own.methods.get(callee.childForFieldName("attribute")?.text ?? "");
      if (arity !== undefined) found = { arity, from: "a method of the file" };
    }
    if (found && positionalArguments(args).length === found.arity) {
      return { node, takes: `${found.arity} positional argument${found.arity === 1 ? "" : "s"}`, from: found.from };
    }
  }
  return null;
}
