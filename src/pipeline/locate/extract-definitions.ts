// Definitions in the common languages, caught by the keyword that introduces them. A regex misses some
// (decorated lambdas, computed names), but the field only has to say which names a file *defines*, so
// that an issue naming `Session.merge_environment` finds the file defining it even when longer
// files mention the name more often. This is the fast pass over every file (11 MB in 70 ms, where
// tree-sitter takes 4 s): it also says which files parseDefinitions should read exactly for an issue.
// Ruby's class methods are written `def self.build`: the name is what follows `self.`.
const DEFINITION =
  /^[ \t]*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:abstract\s+)?(?:def|class|function\*?|interface|type|enum|struct|trait|module|fn|func(?:[ \t]*\([^)\n]*\))?|const|let|var)\s+(?:self\.)?([A-Za-z_$][\w$]*)/gm;
// Methods in JS/TS classes: an indented name followed by parameters and an opening brace.
const METHOD = /^[ \t]+(?:static\s+|async\s+|get\s+|set\s+|public\s+|private\s+|protected\s+)*([A-Za-z_$][\w$]*)\s*\([^)\n]*\)\s*(?::[^{\n]+)?\{/gm;

// Languages whose methods are written `name(params) {` without a keyword.
const BRACE_METHODS = /\.(m?[jt]sx?|c[jt]s|java|cs|kt|swift|php|dart|scala|groovy)$/i;

// Languages that write modifiers before the keyword (`public final class`, `private fun`, `open func`,
// `public function`), annotations before those (`@Override`), keywords the pattern above does not know
// (`fun`, `object`, `protocol`, `extension`, `record`, `typealias`), and type parameters or a receiver
// before a function's name (`fun <T> List<T>.second`).
const MODIFIED = /\.(java|cs|kt|kts|swift|php|dart|scala|sc|groovy)$/i;
const MODIFIED_DEFINITION = new RegExp(
  "^[ \\t]*(?:@[\\w.]+(?:\\([^)\\n]*\\))?[ \\t]+)*" +
    "(?:(?:public|private|protected|internal|fileprivate|static|final|abstract|sealed|open|override|data|inline|suspend|" +
    "partial|readonly|virtual|extern|unsafe|async|mutating|lateinit|external|operator|infix|tailrec|enum|annotation|" +
    "inner|value|companion|strictfp|synchronized|native|case|implicit|lazy|convenience|required|dynamic|indirect|expect|actual|" +
    "fun(?=[ \\t]+interface))[ \\t]+)*" +
    "(?:class|interface|enum|struct|record|object|protocol|extension|trait|fun|func|function|def|typealias)[ \\t]+" +
    "(?:<[^<>\\n]{0,120}>[ \\t]*)?(?:[A-Za-z_][\\w<>?]*\\.)*([A-Za-z_]\\w*)",
  "gm",
);

// Languages whose functions and methods are written after their return type, without a keyword:
// `int parse_header(…)`, `public static List<Foo> load(…)`, `public <T> T get(…)`, `void Server::close()`.
// A declaration ending in `;` on its line is a prototype or a call, not the definition, unless it is an
// expression body (`int Twice(int x) => x * 2;`); a statement that starts with one of TYPED_NOT_TYPES
// (`return compute(x)`, `else if (…)`) is not a definition either. Every part stays on its line, and a
// type's template arguments (one level of nesting) can end in one place only, so a line is tried in time
// proportional to its length whatever it holds.
const TYPED = /\.(c|h|cc|cpp|cxx|hpp|hh|hxx|java|cs|dart|groovy)$/i;
const TEMPLATE_ARGUMENTS = "<(?:[^<>\\n]|<[^<>\\n]*>){0,120}>";
const TYPED_FUNCTION = new RegExp(
  "^[ \\t]*(?:@[\\w.]+(?:\\([^)\\n]*\\))?[ \\t]+)*(?:template[ \\t]*<[^\\n]{0,200}?>\\s*)?" +
    `((?:(?:[A-Za-z_][\\w:.]*(?:${TEMPLATE_ARGUMENTS})?|${TEMPLATE_ARGUMENTS})(?:\\[\\])*[ \\t*&]+){1,6})` +
    "(?:[A-Za-z_]\\w*::)*([A-Za-z_]\\w*)[ \\t]*\\((?:(?=[^\\n]*=>)|(?![^\\n]*;[ \\t]*$))",
  "gm",
);
// C written GNU's way, the return type on the line above: `parse_header (const char *s)` at the line's start.
// Names in capitals are macros (`SYSCALL_DEFINE3(open, …)`), not functions.
const C_SOURCE = /\.[ch]$/i;
const C_NAME_FIRST = /^([A-Za-z_]\w*)[ \t]*\((?![^\n]*;[ \t]*$)/gm;
// C++'s constructors defined out of their class: `Server::Server(int port)`.
const CPP_SOURCE = /\.(cc|cpp|cxx|hpp|hh|hxx|h)$/i;
const CONSTRUCTOR = /^[ \t]*(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)::\1[ \t]*\(/gm;
// C++'s class templates: `template <typename Char> struct basic_string_view {`.
const TEMPLATE_CLASS = /^[ \t]*template\s*<[^\n]{0,200}?>\s*(?:class|struct|union)\s+(?:[A-Z_]+\s+)?([A-Za-z_]\w*)/gm;
const TYPED_NOT_TYPES = new Set([
  "return",
  "else",
  "new",
  "throw",
  "case",
  "delete",
  "goto",
  "await",
  "yield",
  "sizeof",
  "typeof",
  "do",
  "using",
  "import",
  "package",
  "co_return",
  "co_await",
  "co_yield",
  "assert",
  "echo",
  "print",
  "not",
  "and",
  "or",
  "in",
]);
const TYPED_NOT_NAMES = new Set(["if", "for", "while", "switch", "catch", "return", "sizeof", "defined", "typeof", "foreach", "using", "lock", "fixed"]);

// Shell functions: `name() {` or `function name {`.
const SHELL = /\.(sh|bash)$/i;
const SHELL_FUNCTION = /^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*\([ \t]*\)/gm;

/** The names a source file defines (functions, classes, methods, types, top-level constants), in order, without duplicates. */
export function extractDefinitions(text: string, path = ""): string[] {
  const names = new Set<string>();
  for (const found of findDefinitions(text, path)) names.add(found.name);
  return [...names];
}

/** Where a source file defines something: the offset of each definition's line start, in order, once per line. */
export function definitionLineStarts(text: string, path = ""): number[] {
  const starts = new Set<number>();
  for (const found of findDefinitions(text, path)) starts.add(text.lastIndexOf("\n", found.at - 1) + 1);
  return [...starts].sort((a, b) => a - b);
}

/** One definition found: its name, and the offset of the match (on the definition's line). */
interface FoundDefinition {
  name: string;
  at: number;
}

/** Every definition the patterns of the file's language find, pattern by pattern (a name may come more than once). */
function findDefinitions(text: string, path: string): FoundDefinition[] {
  const found: FoundDefinition[] = [];
  const add = (match: RegExpMatchArray, name: string) => found.push({ name, at: match.index! });
  for (const match of text.matchAll(DEFINITION)) add(match, match[1]!);
  if (MODIFIED.test(path)) for (const match of text.matchAll(MODIFIED_DEFINITION)) add(match, match[1]!);
  if (SHELL.test(path)) for (const match of text.matchAll(SHELL_FUNCTION)) add(match, match[1]!);
  if (C_SOURCE.test(path)) {
    for (const match of text.matchAll(C_NAME_FIRST)) if (!/^[A-Z0-9_]+$/.test(match[1]!) && !TYPED_NOT_NAMES.has(match[1]!)) add(match, match[1]!);
  }
  if (CPP_SOURCE.test(path)) for (const match of text.matchAll(CONSTRUCTOR)) add(match, match[1]!);
  if (TYPED.test(path)) {
    for (const match of text.matchAll(TEMPLATE_CLASS)) add(match, match[1]!);
    for (const match of text.matchAll(TYPED_FUNCTION)) {
      const first = /^[A-Za-z_]\w*/.exec(match[1]!)?.[0];
      if (!(first && TYPED_NOT_TYPES.has(first)) && !TYPED_NOT_NAMES.has(match[2]!)) add(match, match[2]!);
    }
  }
  if (!BRACE_METHODS.test(path)) return found;
  for (const match of text.matchAll(METHOD)) {
    const name = match[1]!;
    if (!/^(if|for|while|switch|catch|function|return|with)$/.test(name)) add(match, name);
  }
  return found;
}
