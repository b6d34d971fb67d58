import type { Node } from "web-tree-sitter";
import { grammarForPath } from "./grammar-for-path.js";
import { parseText } from "./load-parser.js";

/** One thing a file defines, as its syntax tree says. */
export interface Definition {
  name: string;
  /** A method is a function defined directly in a class; a name is a top-level variable or constant. */
  kind: "class" | "function" | "method" | "name";
  /** 1-based, inclusive. */
  line: number;
  endLine: number;
  /** The class (or function) it is defined in, if any. */
  parent?: string;
  /** A class's base classes as written (`models.Model`), when the language says them in the header. */
  bases?: string[];
  /** The header up to the body, on one line, at most SIGNATURE_CHARS characters. */
  signature: string;
}

// Node types of the shipped grammars that introduce a class-like or a function-like definition.
const CLASS_TYPES = new Set([
  "class_definition",
  "class_declaration",
  "abstract_class_declaration",
  "class_specifier",
  "struct_specifier",
  "struct_item",
  "enum_item",
  "trait_item",
  "union_item",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "struct_declaration",
  "protocol_declaration",
  "object_declaration",
  "object_definition",
  "trait_definition",
  "type_spec",
  "class",
  "module",
  "contract_declaration",
  "module_binding",
]);
const FUNCTION_TYPES = new Set([
  "function_definition",
  "function_declaration",
  "generator_function_declaration",
  "method_definition",
  "method_declaration",
  "function_item",
  "function_signature_item",
  "method",
  "singleton_method",
  "constructor_declaration",
  "abstract_method_signature",
  "function_signature",
]);
// Type aliases are class-like for the index: an issue naming `Options` means the file declaring it.
const TYPE_TYPES = new Set(["type_alias_declaration", "type_item", "type_binding"]);
// Containers that are not definitions themselves but say whose methods they hold (`impl Foo { … }`).
const IMPL_TYPES = new Set(["impl_item"]);
// A top-level assignment or declaration of a variable or constant.
const NAME_TYPES = new Set(["assignment", "variable_declarator", "const_spec", "var_spec"]);
// Base-class clauses: Python's argument list, Java's and Ruby's superclass, JS/TS heritage, C++ bases.
const BASE_FIELDS = ["superclasses", "superclass"];
const BASE_TYPES = new Set(["class_heritage", "base_class_clause", "superclass", "super_interfaces", "delegation_specifiers", "delegation_specifier"]);
const NOT_BASES = new Set(["extends", "implements", "public", "private", "protected", "virtual", "object", "metaclass"]);
const NAME_NODES = new Set([
  "identifier",
  "type_identifier",
  "field_identifier",
  "constant",
  "property_identifier",
  "name",
  "simple_identifier",
  "destructor_name",
  "operator_name",
]);
const SIGNATURE_CHARS = 160;
// Expressions and literals hold no definitions worth an index entry (lambdas, closures); not entering them saves most of the walk.
const LEAF_TYPES =
  /^(call|call_expression|argument_list|arguments|string|comment|binary_expression|unary_expression|return_statement|.*_literal|integer|float)$/;

// Kotlin's grammar names no field: a class's name is its first type identifier, a function's its first simple one
// (after its modifiers, type parameters and receiver type, which are nodes of their own).
const UNFIELDED_NAMES = new Set(["type_identifier", "simple_identifier"]);
// Elixir defines with calls: `defmodule Foo.Bar do`, `def compute(x) when x > 0 do`, `defp helper, do: 1`.
const ELIXIR_MODULES = new Set(["defmodule", "defprotocol"]);
const ELIXIR_FUNCTIONS = new Set(["def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate"]);

/** The name node of a definition: its `name` field, or for C/C++ the identifier at the end of its declarator chain. */
function nameOf(node: Node): { name: string; scope?: string } | null {
  const named = node.childForFieldName("name");
  if (named) return { name: named.text };
  let declarator = node.childForFieldName("declarator");
  if (!declarator) {
    const unfielded = node.namedChildren.find((child) => child && UNFIELDED_NAMES.has(child.type));
    return unfielded ? { name: unfielded.text } : null;
  }
  while (declarator) {
    if (declarator.type === "qualified_identifier") {
      const name = declarator.childForFieldName("name");
      return name ? { name: name.text, scope: declarator.childForFieldName("scope")?.text } : null;
    }
    if (NAME_NODES.has(declarator.type)) return { name: declarator.text };
    declarator = declarator.childForFieldName("declarator");
  }
  return null;
}

/** What an Elixir call defines, when it is `defmodule` (a class) or `def` and its kin (a function, or a module's method). */
function elixirDefinition(call: Node, parent: Owner | null): Pick<Definition, "name" | "kind" | "parent"> | null {
  const keyword = call.childForFieldName("target")!.text;
  const isModule = ELIXIR_MODULES.has(keyword);
  if (!isModule && !ELIXIR_FUNCTIONS.has(keyword)) return null;
  let head = call.namedChildren.find((child) => child?.type === "arguments")?.namedChildren[0] ?? null;
  // `def compute(x) when x > 0`: the head is the guard's left side.
  if (head?.type === "binary_operator") head = head.childForFieldName("left");
  if (head?.type === "call") head = head.childForFieldName("target");
  if (!head || !/^(identifier|alias)$/.test(head.type)) return null;
  const kind = isModule ? "class" : parent?.isClass ? "method" : "function";
  return { name: head.text, kind, ...(parent ? { parent: parent.name } : {}) };
}

function basesOf(node: Node): string[] | undefined {
  const clauses = [...BASE_FIELDS.map((field) => node.childForFieldName(field)), ...node.namedChildren.filter((c) => c && BASE_TYPES.has(c.type))];
  const bases = new Set<string>();
  for (const clause of clauses) {
    // Python's `metaclass=Meta` sits among the bases but is not one.
    if (!clause || clause.type === "keyword_argument") continue;
    if (clause.type === "argument_list") {
      clauses.push(...clause.namedChildren);
      continue;
    }
    for (const word of clause.text.match(/[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*/g) ?? []) if (!NOT_BASES.has(word)) bases.add(word);
  }
  return bases.size > 0 ? [...bases] : undefined;
}

// Bodies that are not a `body` field: Kotlin's and Swift's function and class bodies, Elixir's `do` block.
const UNFIELDED_BODIES = /^(function_body|class_body|enum_class_body|do_block)$/;
// OCaml's bindings sit in a definition that holds the keyword: `let`, `let rec`, `module`, `type`.
const OCAML_DEFINITIONS = /^(value_definition|module_definition|type_definition)$/;

/** A definition's header on one line; `container` is the node holding it (asked of the walk: `node.parent` walks down from the root). */
function signatureOf(node: Node, source: string, container: Node): string {
  const body = node.childForFieldName("body") ?? node.namedChildren.find((child) => child && UNFIELDED_BODIES.test(child.type)) ?? null;
  // A definition the parser could not read whole (`class A(:`) has no body to stop at: its first line is its header.
  const firstLine = Math.min(node.endIndex, source.indexOf("\n", node.startIndex) >>> 0);
  const end = body && body.startIndex > node.startIndex && !node.hasError ? body.startIndex : firstLine;
  let header = source
    .slice(node.startIndex, end)
    .replace(/\s+/g, " ")
    .replace(/\s*[{:=]?\s*$/, "")
    .trim();
  if (OCAML_DEFINITIONS.test(container.type) && container.firstNamedChild?.id === node.id) {
    const keyword = /^let(?: rec)?|^\w+/.exec(source.slice(container.startIndex, container.startIndex + 8))?.[0];
    if (keyword) header = `${keyword} ${header}`;
  }
  return header.length > SIGNATURE_CHARS ? `${header.slice(0, SIGNATURE_CHARS - 1)}…` : header;
}

// What a top-level name may sit in between it and the root: `export const A = …`, `const A = …`, a decorator.
const TOP_LEVEL_WRAPPERS =
  /^(expression_statement|export_statement|lexical_declaration|variable_declaration|const_declaration|var_declaration|decorated_definition)$/;

/** The definition whose body a walk is in: its name, and whether it is class-like (so that a function there is a method). */
interface Owner {
  name: string;
  isClass: boolean;
}

/**
 * Walks a syntax tree and lists its definitions, outermost first. Only nodes that may hold
 * definitions are entered (blocks, bodies, declarations), not expressions, so a file is walked in a
 * fraction of the time its parse took.
 */
function collect(root: Node, source: string): Definition[] {
  const found: Definition[] = [];
  // Depth first with a stack of its own, not recursion: code nested thousands deep (generated, or built to
  // break the bot) would overflow the call stack and fail the job.
  // Each frame: the node whose children are walked, whether only wrappers lie between it and the root, and its owner.
  const stack: Array<{ node: Node; topLevel: boolean; children: Array<Node | null>; next: number; parent: Owner | null }> = [
    { node: root, topLevel: true, children: root.namedChildren, next: 0, parent: null },
  ];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.children.length) {
      stack.pop();
      continue;
    }
    const child = frame.children[frame.next++];
    const parent = frame.parent;
    if (!child) continue;
    const type = child.type;
    let inner = parent;
    if (CLASS_TYPES.has(type) || TYPE_TYPES.has(type) || FUNCTION_TYPES.has(type)) {
      const named = nameOf(child);
      if (named) {
        const isClass = !FUNCTION_TYPES.has(type);
        // Go writes a method's class as its receiver: `func (s *Server) Close()`.
        const receiver = child.childForFieldName("receiver")?.text.match(/(\w+)\s*\)$/)?.[1];
        const owner = named.scope ?? receiver ?? parent?.name;
        const kind = isClass ? "class" : named.scope || receiver || parent?.isClass ? "method" : "function";
        found.push({
          name: named.name,
          kind,
          line: child.startPosition.row + 1,
          endLine: child.endPosition.row + 1,
          ...(owner ? { parent: owner } : {}),
          ...(isClass && basesOf(child) ? { bases: basesOf(child) } : {}),
          signature: signatureOf(child, source, frame.node),
        });
        inner = { name: named.name, isClass };
      }
    } else if (type === "call" && child.childForFieldName("target")) {
      // Elixir's definitions are calls; any other call holds no definition.
      const elixir = elixirDefinition(child, parent);
      if (!elixir) continue;
      found.push({ ...elixir, line: child.startPosition.row + 1, endLine: child.endPosition.row + 1, signature: signatureOf(child, source, frame.node) });
      inner = { name: elixir.name, isClass: elixir.kind === "class" };
    } else if (type === "let_binding") {
      // OCaml: `let compute x = …` defines a function, `let limit = 3` at the top a name; local values are not listed.
      const pattern = child.childForFieldName("pattern");
      if (pattern?.type === "value_name") {
        const takes = child.namedChildren.some((part) => part?.type === "parameter");
        const kind = takes ? (parent?.isClass ? "method" : "function") : parent === null ? "name" : null;
        if (kind) {
          const signature = signatureOf(child, source, frame.node).split(" = ")[0]!;
          found.push({
            name: pattern.text,
            kind,
            line: child.startPosition.row + 1,
            endLine: child.endPosition.row + 1,
            ...(parent ? { parent: parent.name } : {}),
            signature,
          });
        }
        if (takes) inner = { name: pattern.text, isClass: false };
      }
    } else if (IMPL_TYPES.has(type)) {
      const target = child.childForFieldName("type");
      if (target) inner = { name: target.text, isClass: true };
    } else if (NAME_TYPES.has(type) && frame.topLevel) {
      const left = child.childForFieldName("left") ?? child.childForFieldName("name");
      if (left && NAME_NODES.has(left.type)) {
        found.push({
          name: left.text,
          kind: "name",
          line: child.startPosition.row + 1,
          endLine: child.endPosition.row + 1,
          signature: signatureOf(child, source, frame.node).split(" = ")[0]!,
        });
      }
      continue;
    } else if (LEAF_TYPES.test(type)) {
      continue;
    }
    stack.push({ node: child, topLevel: frame.topLevel && TOP_LEVEL_WRAPPERS.test(type), children: child.namedChildren, next: 0, parent: inner });
  }
  return found;
}

/**
 * The classes, functions, methods and top-level names a file defines, with line ranges, parents and
 * base classes, read from its tree-sitter syntax tree; null for a file in a language without a shipped
 * grammar. Parsing is exact but costs about a second per 3 MB, so the Custodian's index parses only the
 * files an issue's names point to (locate/rank-files.ts), with extractDefinitions as the fast pass over
 * every file; prompts show the definitions of the few files they hold as an outline (outlineFile).
 */
export async function parseDefinitions(text: string, path: string): Promise<Definition[] | null> {
  const grammar = grammarForPath(path);
  if (!grammar || grammar === "json" || grammar === "toml" || grammar === "css" || grammar === "html") return null;
  const tree = await parseText(grammar, text);
  if (!tree) return null;
  try {
    return collect(tree.rootNode, text);
  } finally {
    tree.delete();
  }
}
